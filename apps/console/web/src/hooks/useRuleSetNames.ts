import { useCallback, useEffect, useState } from 'react';
import { cp, errorText } from '../api';
import { onHubEvent } from '../hub';

/** The tenant's rule set names (`GET /api/v1/control-plane/rulesets`), reloaded on every change event. */
export function useRuleSetNames(): { names: string[]; error: string | null } {
  const [names, setNames] = useState<string[]>([]);
  const [error, setError] = useState<string | null>(null);
  const reload = useCallback(() => {
    cp<{ rulesets: { workflowName: string }[] }>('/api/v1/control-plane/rulesets')
      .then((r) => setNames(r.rulesets.map((x) => x.workflowName)))
      .catch((e) => setError(errorText(e)));
  }, []);
  useEffect(reload, [reload]);
  useEffect(() => onHubEvent((e) => e.kind === 'RuleSetChangeEvent' && reload()), [reload]);
  return { names, error };
}

/** The workflow picked on a page, kept in the hash (`#/page/<workflow>`) so a reload keeps it. */
export function useHashWorkflow(page: string): [string, (wf: string) => void] {
  const read = () => {
    const [, p, wf] = location.hash.replace(/^#\/?/, '/').split('/');
    return p === page && wf ? decodeURIComponent(wf) : '';
  };
  const [wf, setWf] = useState(read);
  const set = (next: string) => {
    setWf(next);
    history.replaceState(null, '', `#/${page}${next ? `/${encodeURIComponent(next)}` : ''}`);
  };
  return [wf, set];
}
