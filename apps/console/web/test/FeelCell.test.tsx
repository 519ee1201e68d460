import { MantineProvider } from '@mantine/core';
import { act, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { useState } from 'react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { FeelCell } from '../src/components/FeelCell';

/**
 * The FEEL cell's browser logic: when it asks the decisions service to validate (only once edited,
 * debounced, the grid's columns in scope), and what it shows (the service's message on the cell, cleared
 * by a valid answer; a late answer to older text never overwrites the newer one). The service is played
 * by a recorded `fetch` answering as the real route does (`{ valid, message, line?, column? }`).
 */
interface Call {
  url: string;
  body: any;
}
let calls: Call[];
let answer: (body: any) => { valid: boolean; message: string; line?: number; column?: number };
let delayFor: (body: any) => number;

const json = (value: unknown) =>
  new Response(JSON.stringify(value), { status: 200, headers: { 'content-type': 'application/json' } });

beforeEach(() => {
  calls = [];
  answer = (b) =>
    b.expression.includes('>>')
      ? { valid: false, message: "Unexpected token '>'", line: 1, column: 2 }
      : { valid: true, message: 'OK' };
  delayFor = () => 0;
  vi.stubGlobal('fetch', async (url: string, init?: RequestInit) => {
    if (url === '/console-config.json')
      return json({
        prefixes: { controlPlane: '/svc/cp', decisions: '/svc/dt', identity: '/svc/id' },
        authenticated: { controlPlane: false, decisions: false },
      });
    const body = init?.body ? JSON.parse(String(init.body)) : undefined;
    if (url.endsWith('/feel-autocomplete')) return json({ suggestions: [] });
    calls.push({ url, body });
    await new Promise((r) => setTimeout(r, delayFor(body)));
    return json(answer(body));
  });
});

function Harness(props: {
  initial: string;
  error?: string;
  tableId?: string;
  scope?: Record<string, string>;
}) {
  const [value, setValue] = useState(props.initial);
  return (
    <MantineProvider>
      <FeelCell
        label="age of row r1"
        value={value}
        error={props.error}
        tableId={props.tableId}
        scope={props.scope}
        onChange={setValue}
      />
    </MantineProvider>
  );
}

const input = () => document.querySelector('input[aria-label="age of row r1"]') as HTMLInputElement;
const typeInto = (text: string) => {
  // one change event per key, as the operator types
  for (let i = 1; i <= text.length; i++) fireEvent.change(input(), { target: { value: text.slice(0, i) } });
};
const pause = (ms: number) => act(() => new Promise((r) => setTimeout(r, ms)));

describe('FEEL cell validation as you type', () => {
  it('asks the service once per pause in typing, with the grid columns in scope, and shows its message', async () => {
    render(<Harness initial="" tableId="t-1" scope={{ age: 'number', region: 'any' }} />);
    typeInto('>> 18');
    await waitFor(() => expect(input().getAttribute('aria-invalid')).toBe('true'));
    expect(calls).toHaveLength(1);
    expect(calls[0].url).toBe('/svc/dt/api/v1/decision-tables/t-1/feel/validate-expression');
    expect(calls[0].body).toEqual({ expression: '>> 18', rowContext: { age: 'number', region: 'any' } });
    expect(screen.getByText("line 1, column 2: Unexpected token '>'")).toBeTruthy();

    fireEvent.change(input(), { target: { value: '>= 18' } });
    await waitFor(() => expect(input().getAttribute('aria-invalid')).not.toBe('true'));
    expect(screen.queryByText(/Unexpected token/)).toBeNull();
    expect(calls.map((c) => c.body.expression)).toEqual(['>> 18', '>= 18']);
  });

  it('asks nothing for an untouched cell and shows the last Validate error until the cell is edited', async () => {
    render(<Harness initial=">> 18" error="from Validate" tableId="t-1" />);
    await pause(400);
    expect(calls).toHaveLength(0);
    expect(screen.getByText('from Validate')).toBeTruthy();

    typeInto('>= 1');
    await waitFor(() => expect(calls.length).toBe(1));
    await waitFor(() => expect(screen.queryByText('from Validate')).toBeNull());
  });

  it('clears the error of an emptied cell without asking the service', async () => {
    render(<Harness initial="" tableId="t-1" />);
    typeInto('>>');
    await waitFor(() => expect(input().getAttribute('aria-invalid')).toBe('true'));
    fireEvent.change(input(), { target: { value: '' } });
    await waitFor(() => expect(input().getAttribute('aria-invalid')).not.toBe('true'));
    await pause(400);
    expect(calls).toHaveLength(1);
  });

  it('asks nothing when the table has no id yet', async () => {
    render(<Harness initial="" />);
    typeInto('>> 1');
    await pause(400);
    expect(calls).toHaveLength(0);
    expect(input().getAttribute('aria-invalid')).not.toBe('true');
  });

  it('drops a late answer about older text: the newest text decides', async () => {
    // the answer about '>>' is slow, the one about '> 1' quick: the cell must end valid
    delayFor = (b) => (b.expression === '>>' ? 600 : 0);
    render(<Harness initial="" tableId="t-1" />);
    typeInto('>>');
    await waitFor(() => expect(calls.length).toBe(1));
    fireEvent.change(input(), { target: { value: '> 1' } });
    await waitFor(() => expect(calls.length).toBe(2));
    await pause(800);
    expect(input().getAttribute('aria-invalid')).not.toBe('true');
  });
});
