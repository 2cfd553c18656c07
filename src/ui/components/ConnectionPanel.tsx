/**
 * Backend choice, service URL, API key (masked) and sign-in token. Saved in the host's private storage
 * (Excel: OfficeRuntime.storage; never the workbook). "Test and save" asks /health and a 1-row search, and saves only when both answer.
 */
import { Button, Caption1, Checkbox, Field, Input, Radio, RadioGroup, SpinButton } from '@fluentui/react-components';
import { useState } from 'react';
import { ORGANIZATION_TYPES } from '../../contract/v2/filters.js';
import type { Connection } from '../../sheet/connection.js';
import type { Host } from '../host.js';
import { Notice } from './Notice.js';
import { useAction } from './use-async.js';

export function ConnectionPanel({ host, onSaved }: { host: Host; onSaved: () => void }) {
  const [draft, setDraft] = useState<Connection>(host.connection());
  const [status, setStatus] = useState<string | null>(null);
  const [shared, setShared] = useState(false);
  const { busy, error, run } = useAction();
  const set = (patch: Partial<Connection>) => {
    setDraft({ ...draft, ...patch });
    setStatus(null);
  };
  const save = () =>
    run(async () => {
      await host.saveConnection(draft, { shared });
      setStatus('Saved. Formulas use this connection from their next calculation (Refresh recalculates now).');
      onSaved();
    });
  // Tested before it is saved: a mistyped key never becomes the connection the formulas use.
  const test = () =>
    run(async () => {
      const backend = host.backendFor(draft);
      const health = await backend.health();
      if (!health.healthy) throw new Error(`the service reports a problem: ${health.error ?? 'unhealthy'}`);
      const probe = await backend.search({ filters: { organization_type: [...ORGANIZATION_TYPES] }, size: 1, columns: ['domain'] });
      await host.saveConnection(draft, { shared });
      onSaved();
      setStatus(`Connected and saved: healthy, search answers (${probe.metadata.total_hits === null ? 'some' : probe.metadata.total_hits.toLocaleString('en-US')} organizations visible to this key).`);
    });
  return (
    <form
      aria-label="Connection"
      onSubmit={(event) => {
        event.preventDefault();
        void save();
      }}
    >
      <Field label="Answers come from">
        <RadioGroup value={draft.backend} onChange={(_, data) => set({ backend: data.value === 'remote' ? 'remote' : 'local' })}>
          <Radio value="local" label="Built-in sample (no key, no network)" />
          <Radio value="remote" label="OrgIndex service" />
        </RadioGroup>
      </Field>
      {draft.backend === 'remote' ? (
        <>
          <Field label="Service URL" hint="e.g. https://api.example.com or http://localhost:8787">
            <Input type="url" value={draft.serviceUrl} onChange={(_, data) => set({ serviceUrl: data.value })} />
          </Field>
          <Field label="API key" hint={host.keyStorage}>
            <Input type="password" autoComplete="off" value={draft.apiKey} onChange={(_, data) => set({ apiKey: data.value })} />
          </Field>
          <Field label="Sign-in token (for ORG.ASK)">
            <Input type="password" autoComplete="off" value={draft.accessToken} onChange={(_, data) => set({ accessToken: data.value })} />
          </Field>
          <Field label="Language service URL (optional)" hint="Only when ORG.ASK's service lives elsewhere than the service URL">
            <Input type="url" value={draft.languageUrl} onChange={(_, data) => set({ languageUrl: data.value })} />
          </Field>
        </>
      ) : null}
      {host.canShareConnection && draft.backend === 'remote' ? (
        <Checkbox
          label="Team connection: everyone using this spreadsheet (its editors can read the key)"
          checked={shared}
          onChange={(_, data) => {
            setShared(data.checked === true);
          }}
        />
      ) : null}
      <Field label="Reuse answers for (hours)">
        <SpinButton min={0} max={720} value={draft.cacheHours} onChange={(_, data) => set({ cacheHours: data.value ?? Number(data.displayValue ?? draft.cacheHours) })} />
      </Field>
      <div className="row">
        <Button appearance="primary" type="submit" disabled={busy}>
          Save
        </Button>
        <Button type="button" onClick={() => void test()} disabled={busy}>
          Test and save
        </Button>
      </div>
      <Notice intent="success" text={status} />
      <Notice intent="error" text={error} />
      <Caption1>Without a key the functions answer from the built-in sample of 50,000 organizations.</Caption1>
    </form>
  );
}
