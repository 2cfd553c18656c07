/**
 * Backend choice, service URL, API key (masked) and sign-in token. Saved in the host's private storage
 * (Excel: OfficeRuntime.storage; never the workbook). "Test and save" asks /health and a 1-row search, and saves only when both answer.
 *
 * The addresses are checked before anything is sent or saved: an empty service URL asks for one ("such as
 * http://localhost:8787"), one without a scheme ("localhost:8787") is not completed but gets the advice to
 * add http:// or https:// (connection-form.ts). While no connection is saved, a page served by `npm start`
 * fills the form with the API server running beside it (dev-connection.ts) and says so; a saved
 * connection, or anything the user types first, wins.
 */
import { Button, Caption1, Checkbox, Field, Input, Radio, RadioGroup, SpinButton } from '@fluentui/react-components';
import { useEffect, useRef, useState } from 'react';
import { ORGANIZATION_TYPES } from '../../contract/v2/filters.js';
import type { Connection } from '../../sheet/connection.js';
import { addressProblem } from '../connection-form.js';
import { findSuggestedConnection, isUnsaved, suggestionHint, type SuggestedConnection } from '../dev-connection.js';
import type { Host } from '../host.js';
import { Notice } from './Notice.js';
import { useAction } from './use-async.js';

interface AddressProblems {
  serviceUrl: string | null;
  languageUrl: string | null;
}

const NO_PROBLEMS: AddressProblems = { serviceUrl: null, languageUrl: null };

export function ConnectionPanel({ host, onSaved }: { host: Host; onSaved: () => void }) {
  const [draft, setDraft] = useState<Connection>(host.connection());
  const [status, setStatus] = useState<string | null>(null);
  const [shared, setShared] = useState(false);
  const [suggested, setSuggested] = useState<SuggestedConnection | null>(null);
  const [problems, setProblems] = useState<AddressProblems>(NO_PROBLEMS);
  const edited = useRef(false);
  const serviceUrlInput = useRef<HTMLInputElement>(null);
  const languageUrlInput = useRef<HTMLInputElement>(null);
  const { busy, error, run, setError } = useAction();
  useEffect(() => {
    if (!isUnsaved(host.connection())) return;
    let current = true;
    void findSuggestedConnection(window.location.hostname, (path) => fetch(path, { cache: 'no-store', credentials: 'same-origin' })).then((found) => {
      // The answer comes after the first render: what the user typed or saved meanwhile stays.
      if (!current || !found || edited.current || !isUnsaved(host.connection())) return;
      setDraft((before) => ({ ...before, backend: 'remote', serviceUrl: found.serviceUrl, apiKey: found.apiKey, accessToken: found.accessToken }));
      setSuggested(found);
    });
    return () => {
      current = false;
    };
  }, [host]);
  const set = (patch: Partial<Connection>) => {
    edited.current = true;
    setDraft({ ...draft, ...patch });
    setStatus(null);
    setProblems(NO_PROBLEMS);
  };
  const saved = (message: string) => {
    setSuggested(null);
    onSaved();
    setStatus(message);
  };
  // Nothing is sent with an address the client would refuse anyway, and its message is about the field.
  const addressesUsable = (): boolean => {
    const found = draft.backend === 'remote' ? { serviceUrl: addressProblem(draft.serviceUrl, true), languageUrl: addressProblem(draft.languageUrl, false) } : NO_PROBLEMS;
    setProblems(found);
    if (found.serviceUrl === null && found.languageUrl === null) return true;
    setStatus(null);
    setError(null);
    (found.serviceUrl !== null ? serviceUrlInput : languageUrlInput).current?.focus();
    return false;
  };
  const save = () => {
    if (!addressesUsable()) return Promise.resolve();
    return run(async () => {
      await host.saveConnection(draft, { shared });
      saved('Saved. Formulas use this connection from their next calculation (Refresh recalculates now).');
    });
  };
  // Tested before it is saved: a mistyped key never becomes the connection the formulas use.
  const test = () => {
    if (!addressesUsable()) return Promise.resolve();
    return run(async () => {
      const backend = host.backendFor(draft);
      const health = await backend.health();
      if (!health.healthy) throw new Error(`the service reports a problem: ${health.error ?? 'unhealthy'}`);
      const probe = await backend.search({ filters: { organization_type: [...ORGANIZATION_TYPES] }, size: 1, columns: ['domain'] });
      await host.saveConnection(draft, { shared });
      saved(`Connected and saved: healthy, search answers (${probe.metadata.total_hits === null ? 'some' : probe.metadata.total_hits.toLocaleString('en-US')} organizations visible to this key).`);
    });
  };
  const offered = suggested !== null && draft.backend === 'remote' && draft.serviceUrl === suggested.serviceUrl ? suggestionHint(suggested) : null;
  return (
    <form
      aria-label="Connection"
      // The addresses are checked with this form's own messages, not the browser's "Please enter a URL".
      noValidate
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
      <Notice intent="info" text={offered} />
      {draft.backend === 'remote' ? (
        <>
          <Field label="Service URL" hint="e.g. https://api.example.com or http://localhost:8787" validationState={problems.serviceUrl === null ? 'none' : 'error'} validationMessage={problems.serviceUrl}>
            <Input ref={serviceUrlInput} type="url" value={draft.serviceUrl} onChange={(_, data) => set({ serviceUrl: data.value })} />
          </Field>
          <Field label="API key" hint={host.keyStorage}>
            <Input type="password" autoComplete="off" value={draft.apiKey} onChange={(_, data) => set({ apiKey: data.value })} />
          </Field>
          <Field label="Sign-in token (for ORG.ASK)">
            <Input type="password" autoComplete="off" value={draft.accessToken} onChange={(_, data) => set({ accessToken: data.value })} />
          </Field>
          <Field label="Language service URL (optional)" hint="Only when ORG.ASK's service lives elsewhere than the service URL" validationState={problems.languageUrl === null ? 'none' : 'error'} validationMessage={problems.languageUrl}>
            <Input ref={languageUrlInput} type="url" value={draft.languageUrl} onChange={(_, data) => set({ languageUrl: data.value })} />
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
