import { Autocomplete } from '@mantine/core';
import { memo, useEffect, useRef, useState } from 'react';
import { dt } from '../api';
import { completionOptions, Suggestion } from '../feel-completion';

interface Props {
  label: string;
  value: string;
  error?: string;
  tableId?: string;
  onChange: (value: string) => void;
}

/** wait this long after the last key before asking the service for completions */
const DEBOUNCE_MS = 150;

/**
 * A FEEL cell: Mantine's Autocomplete fed by the decisions service's `POST /feel-autocomplete` (the
 * table's columns and the FEEL functions), asked as you type; picking a suggestion replaces the word
 * being typed. Completions are asked only while the cell has focus.
 */
export const FeelCell = memo(function FeelCell({ label, value, error, tableId, onChange }: Props) {
  const [options, setOptions] = useState<{ value: string; label: string }[]>([]);
  const [focused, setFocused] = useState(false);
  const asked = useRef(0);
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

  return (
    <Autocomplete
      size="xs"
      aria-label={label}
      value={value}
      error={error}
      // Autocomplete writes an option's label into the input: the label is the whole new text, and the
      // signature is what the option shows
      data={focused ? options.map((o) => o.value) : []}
      renderOption={({ option }) => descriptions.get(option.value) ?? option.value}
      filter={({ options: all }) => all}
      limit={12}
      onChange={onChange}
      onFocus={() => setFocused(true)}
      onBlur={() => setFocused(false)}
      comboboxProps={{ withinPortal: true }}
      styles={{ input: { fontFamily: 'monospace' } }}
    />
  );
});
