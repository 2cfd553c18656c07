/**
 * Search in plain words: "bakeries in Munich without gluten, founded after 2015" goes to the language
 * interface's nlp_search — the service's where the connection has a sign-in token, else the built-in
 * parser on this computer — and comes back as chips (words, places, categories, dates, description,
 * domains) and the formula they make. Nothing runs until "Use this search" puts them into the form;
 * a chip's × drops that part first.
 */
import { Button, Caption1, Field, Tag, TagGroup, Textarea } from '@fluentui/react-components';
import { useState } from 'react';
import { TEXT_LIMITS } from '../../contract/limits.js';
import { DEFAULT_CONNECTION } from '../../sheet/connection.js';
import type { Host } from '../host.js';
import { chipsOf, formOfQuery, formulaOf, isSearchable, type SearchForm } from '../search-form.js';
import { Notice } from './Notice.js';
import { useAction } from './use-async.js';

interface Proposal {
  form: SearchForm;
  /** Where the words were understood, for the line under the chips. */
  by: string;
  ignored: string[];
  /** Words of the query nothing was made of (the parser says so rather than searching for them). */
  notUnderstood: string[];
}

export function PlainLanguageBox({ host, base, onUse }: { host: Host; base: SearchForm; onUse: (form: SearchForm) => void }) {
  const [text, setText] = useState('');
  const [proposal, setProposal] = useState<Proposal | null>(null);
  const { busy, error, run } = useAction();

  const understand = () =>
    run(async () => {
      const connection = host.connection();
      const byService = connection.backend === 'remote' && connection.accessToken.trim() !== '';
      // Without a sign-in token the service's language interface is closed: the built-in parser reads the words.
      const backend = byService ? host.backend() : host.backendFor({ ...DEFAULT_CONNECTION });
      const response = await backend.nlpSearch({ user_query: text.trim(), search_id: `sheet-${Date.now().toString(36)}` });
      const { form, ignored } = formOfQuery(response.payload, base);
      const notUnderstood = response.payload.not_understood ?? [];
      setProposal({ form, ignored, notUnderstood, by: byService ? 'the OrgIndex service' : 'the built-in parser (sign in under Connection to use the service’s)' });
    });

  const chips = proposal ? chipsOf(proposal.form) : [];
  const formula = proposal && isSearchable(proposal.form) ? formulaOf(proposal.form, host.functionName('SEARCH')) : '';

  return (
    <section aria-label="Search in plain words">
      <Field label="Search in plain words" hint="e.g. bakeries in Munich without gluten, founded after 2015">
        <Textarea
          value={text}
          maxLength={TEXT_LIMITS.userQueryLength}
          resize="vertical"
          onChange={(_, data) => setText(data.value)}
          onKeyDown={(event) => {
            if (event.key === 'Enter' && !event.shiftKey) {
              event.preventDefault();
              if (text.trim() !== '' && !busy) void understand();
            }
          }}
        />
      </Field>
      <div className="row">
        <Button disabled={busy || text.trim() === ''} onClick={() => void understand()}>
          Understand
        </Button>
      </div>
      <Notice intent="error" text={error} />
      {proposal ? (
        <section aria-label="Understood as">
          {chips.length > 0 ? (
            <TagGroup
              aria-label="Understood as"
              onDismiss={(_, data) => {
                const chip = chips.find((candidate) => candidate.id === data.value);
                if (chip) setProposal({ ...proposal, form: chip.without() });
              }}
            >
              {chips.map((chip) => (
                <Tag key={chip.id} value={chip.id} dismissible dismissIcon={{ 'aria-label': `remove ${chip.label} ${chip.value}` }}>
                  {chip.label}: {chip.value}
                </Tag>
              ))}
            </TagGroup>
          ) : (
            <Caption1>Nothing to search for was found in these words.</Caption1>
          )}
          <Caption1>
            Understood by {proposal.by}.{proposal.ignored.length > 0 ? ` Not used: ${proposal.ignored.join(', ')}.` : ''}
          </Caption1>
          {proposal.notUnderstood.length > 0 ? (
            <Caption1 aria-label="Not understood">
              Not understood: {proposal.notUnderstood.map((word) => `“${word}”`).join(', ')} (left out of the search).
            </Caption1>
          ) : null}
          {formula ? (
            <code className="formula" aria-label="Formula of these words">
              {formula}
            </code>
          ) : null}
          <div className="row">
            <Button
              appearance="primary"
              disabled={!isSearchable(proposal.form)}
              onClick={() => {
                onUse(proposal.form);
                setProposal(null);
              }}
            >
              Use this search
            </Button>
            <Button onClick={() => setProposal(null)}>Discard</Button>
          </div>
        </section>
      ) : null}
    </section>
  );
}
