import { Autocomplete } from '@mantine/core';
import { memo, useEffect, useRef, useState } from 'react';
import { dt } from '../api';
import { completionOptions, Suggestion } from '../feel-completion';
import { FeelValidation, needsValidation, validationText } from '../feel-validation';

interface Props {
  label: string;
  value: string;
  error?: string;
  tableId?: string;
  /** names in scope besides the saved table's (see `validationScope`); keep it stable across renders */
  scope?: Record<string, string>;
  onChange: (value: string) => void;
}

/** wait this long after the last key before asking the service for completions */
const DEBOUNCE_MS = 150;
/** wait this long after the last key before asking the service whether the cell is valid */
const VALIDATE_DEBOUNCE_MS = 250;

/**
 * A FEEL cell: Mantine's Autocomplete fed by the decisions service's `POST /feel-autocomplete` (the
 * table's columns and the FEEL functions), asked as you type; picking a suggestion replaces the word
 * being typed. Completions are asked only while the cell has focus.
 *
 * Validation as you type: once the operator edits the cell, its text is checked (debounced) by
 * `POST /api/v1/decision-tables/{id}/feel/validate-expression` (unary tests or an expression, the table's
 * columns in scope) and the service's message is the cell's error; from then on that live answer replaces
 * the one of the last **Validate** for this cell. Untouched cells ask nothing (a 1,000-row table).
 */
export const FeelCell = memo(function FeelCell({ label, value, error, tableId, scope, onChange }: Props) {
  const [options, setOptions] = useState<{ value: string; label: string }[]>([]);
  const [focused, setFocused] = useState(false);
  const [edited, setEdited] = useState(false);
  const [liveError, setLiveError] = useState<string | undefined>(undefined);
  const asked = useRef(0);
  const checked = useRef(0);
  const descriptions = new Map(options.map((o) => [o.value, o.label]));

  useEffect(() => {
    if (!focused) return;
    const ticket = ++asked.current;
    const timer = setTimeout(() => {
      dt<{ suggestions: Suggestion[] }>('/api/v1/decision-tables/feel-autocomplete', {
        method: 'POST',
        body: { expression: value, cursor: value.length, tableId },
      })
        .then((r) => ticket === asked.current && setOptions(completionOptions(value, r.suggestions)))
        .catch(() => ticket === asked.current && setOptions([]));
    }, DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [value, focused, tableId]);

  useEffect(() => {
    if (!edited || !tableId) return;
    const ticket = ++checked.current;
    if (!needsValidation(value)) {
      setLiveError(undefined);
      return;
    }
    const timer = setTimeout(() => {
      dt<FeelValidation>(`/api/v1/decision-tables/${encodeURIComponent(tableId)}/feel/validate-expression`, {
        method: 'POST',
        body: { expression: value, rowContext: scope ?? {} },
      })
        .then((r) => ticket === checked.current && setLiveError(validationText(r)))
        // the check itself failed (e.g. the table is not saved yet): say nothing rather than guess
        .catch(() => ticket === checked.current && setLiveError(undefined));
    }, VALIDATE_DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [value, edited, tableId, scope]);

  return (
    <Autocomplete
      size="xs"
      aria-label={label}
      value={value}
      error={edited ? liveError : error}
      // Autocomplete writes an option's label into the input: the label is the whole new text, and the
      // signature is what the option shows
      data={focused ? options.map((o) => o.value) : []}
      renderOption={({ option }) => descriptions.get(option.value) ?? option.value}
      filter={({ options: all }) => all}
      limit={12}
      onChange={(v) => {
        setEdited(true);
        onChange(v);
      }}
      onFocus={() => setFocused(true)}
      onBlur={() => setFocused(false)}
      comboboxProps={{ withinPortal: true }}
      styles={{ input: { fontFamily: 'monospace' } }}
    />
  );
});
