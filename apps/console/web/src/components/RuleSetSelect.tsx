import { NativeSelect } from '@mantine/core';

/** The "Rule set" picker of the pages that work on one rule set: its names, with an empty "choose" entry. */
export function RuleSetSelect({
  names,
  value,
  onChange,
  maw,
}: {
  names: readonly string[];
  value: string;
  onChange: (workflow: string) => void;
  maw?: number;
}) {
  return (
    <NativeSelect
      label="Rule set"
      maw={maw}
      value={value}
      onChange={(e) => onChange(e.currentTarget.value)}
      data={[{ value: '', label: 'choose a rule set' }, ...names.map((n) => ({ value: n, label: n }))]}
    />
  );
}
