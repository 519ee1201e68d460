import { Textarea } from '@mantine/core';

/** A JSON text area that reports whether its content parses. */
export function JsonEditor(props: {
  label: string;
  value: string;
  onChange: (value: string) => void;
  minRows?: number;
  testId?: string;
}) {
  let parseError: string | null = null;
  try {
    JSON.parse(props.value || 'null');
  } catch (e) {
    parseError = (e as Error).message;
  }
  return (
    <Textarea
      label={props.label}
      value={props.value}
      onChange={(e) => props.onChange(e.currentTarget.value)}
      autosize
      minRows={props.minRows ?? 8}
      maxRows={24}
      error={parseError ? `Not valid JSON: ${parseError}` : undefined}
      styles={{ input: { fontFamily: 'monospace', fontSize: 12 } }}
      spellCheck={false}
      data-testid={props.testId}
    />
  );
}

export function parseJson(text: string): unknown {
  return JSON.parse(text);
}
