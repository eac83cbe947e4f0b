import { useState } from 'preact/hooks';
import { api } from '../api/client.js';
import { uploadFile } from '../api/uploadFile.js';
import type { InputOutput, PushResult } from '../api/types.js';
import { isFileType } from '../lib/callSnippets.js';
import { href, navigate } from '../lib/router.js';

type Field = string | boolean | File | null;

const initial = (input: InputOutput): Field => {
  if (input.type === 'bool') return input.data === true;
  if (isFileType(input.type)) return null;
  if (input.data === null || input.data === undefined) return '';
  return typeof input.data === 'string' ? input.data : JSON.stringify(input.data);
};

/** A field's value as the input's type wants it; undefined leaves an optional input out. */
async function inputValue(input: InputOutput, field: Field): Promise<unknown> {
  if (field instanceof File) return uploadFile(field);
  if (typeof field === 'boolean') return field;
  if (field === null || field === '') {
    if (input.is_optional) return undefined;
    throw new Error(`${input.name} is required.`);
  }
  if (input.type === 'int' || input.type === 'float') return Number(field);
  if (input.type === 'str' || isFileType(input.type)) return field;
  try {
    return JSON.parse(field);
  } catch {
    if (input.type === 'dict' || input.type === 'list') throw new Error(`${input.name} must be JSON (${input.type}).`);
    return field;
  }
}

/** A job from the version's declared inputs, files uploaded first; opens the job once pushed. */
export function PushForm({ fn, inputs }: { fn: string; inputs: InputOutput[] }) {
  const [fields, setFields] = useState<Record<string, Field>>(() => Object.fromEntries(inputs.map((input) => [input.name, initial(input)])));
  const [state, setState] = useState<{ busy: boolean; error?: string }>({ busy: false });
  const set = (name: string, value: Field) => setFields((previous) => ({ ...previous, [name]: value }));

  const submit = async (event: Event) => {
    event.preventDefault();
    setState({ busy: true });
    try {
      const values: Record<string, unknown> = {};
      for (const input of inputs) {
        const value = await inputValue(input, fields[input.name] ?? null);
        if (value !== undefined) values[input.name] = value;
      }
      const job = await api<PushResult>('/v2/push?source=dashboard', { method: 'POST', body: { function: fn, inputs: values } });
      navigate(href(['jobs', job.id]));
    } catch (error) {
      setState({ busy: false, error: (error as Error).message });
    }
  };

  return (
    <form class="push-form" onSubmit={submit}>
      {inputs.map((input) => (
        <label key={input.name} class="field">
          <span class="field-name">
            {input.name} <span class="type">{input.type}</span>
            {input.is_optional && <span class="muted"> optional</span>}
          </span>
          {input.description && <span class="muted field-help">{input.description}</span>}
          <FieldInput input={input} value={fields[input.name] ?? null} set={(value) => set(input.name, value)} />
        </label>
      ))}
      {state.error && (
        <p class="failure" role="alert">
          {state.error}
        </p>
      )}
      <button type="submit" class="primary" disabled={state.busy}>
        {state.busy ? 'Pushing…' : 'Push job'}
      </button>
    </form>
  );
}

function FieldInput({ input, value, set }: { input: InputOutput; value: Field; set: (value: Field) => void }) {
  if (isFileType(input.type))
    return <input type="file" name={input.name} onChange={(event) => set((event.currentTarget as HTMLInputElement).files?.[0] ?? null)} />;
  if (input.type === 'bool')
    return <input type="checkbox" name={input.name} checked={value === true} onChange={(event) => set((event.currentTarget as HTMLInputElement).checked)} />;
  if (input.type === 'int' || input.type === 'float')
    return (
      <input
        type="number"
        name={input.name}
        step={input.type === 'int' ? '1' : 'any'}
        value={String(value ?? '')}
        onInput={(event) => set((event.currentTarget as HTMLInputElement).value)}
      />
    );
  const multiline = input.type !== 'str';
  return multiline ? (
    <textarea
      name={input.name}
      rows={3}
      placeholder={input.type === 'dict' ? '{"key": "value"}' : 'JSON'}
      value={String(value ?? '')}
      onInput={(event) => set((event.currentTarget as HTMLTextAreaElement).value)}
    />
  ) : (
    <input type="text" name={input.name} value={String(value ?? '')} onInput={(event) => set((event.currentTarget as HTMLInputElement).value)} />
  );
}
