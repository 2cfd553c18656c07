/**
 * Saved queries (answers inserted as refreshable values) and, where the host can, their schedule: the
 * list with last refresh and status, "Refresh all now", Remove, and how often a trigger refreshes them.
 */
import { Button, Caption1, Dropdown, Field, Input, Option, Text } from '@fluentui/react-components';
import { useCallback, useEffect, useState } from 'react';
import { REFRESH_FREQUENCIES, WEEKDAYS, type RefreshReport, type RefreshSchedule } from '../../contract/saved-query.js';
import type { SavedQuerySummary, ScheduleView } from '../../sheet/saved-query.js';
import type { SavedQueriesHost } from '../host.js';
import { Notice } from './Notice.js';
import { useAction } from './use-async.js';

const FREQUENCY_LABELS: Record<RefreshSchedule['frequency'], string> = { off: 'Off', hourly: 'Every hour', daily: 'Every day', weekly: 'Every week' };
const hourLabel = (hour: number): string => `${String(hour).padStart(2, '0')}:00`;
const titleCase = (day: string): string => day.charAt(0) + day.slice(1).toLowerCase();

function reportText(report: RefreshReport): string {
  if (report.skipped) return report.skipped;
  const failed = report.failed.map((failure) => `${failure.target}: ${failure.message}`);
  const postponed = report.postponed > 0 ? [`${report.postponed} left for the next run (time limit).`] : [];
  return [`${report.refreshed} refreshed, ${report.failed.length} failed.`, ...postponed, ...failed].join(' ');
}

function ScheduleForm({ schedule, visible }: { schedule: NonNullable<SavedQueriesHost['schedule']>; visible: boolean }) {
  const [current, setCurrent] = useState<ScheduleView | null>(null);
  const [draft, setDraft] = useState<RefreshSchedule | null>(null);
  const [email, setEmail] = useState('');
  const [notice, setNotice] = useState<string | null>(null);
  const { busy, error, run } = useAction();

  // Read again whenever the tab is shown: another user may have changed the schedule meanwhile.
  useEffect(() => {
    if (!visible) return;
    void run(async () => {
      const view = await schedule.get();
      setCurrent(view);
      setDraft(view);
      setEmail(view.email ?? '');
    });
  }, [schedule, run, visible]);

  if (!draft || !current) return <Notice intent="error" text={error} />;
  const set = (patch: Partial<RefreshSchedule>) => {
    setDraft({ ...draft, ...patch });
  };
  const save = () =>
    run(async () => {
      const view = await schedule.set({ frequency: draft.frequency, hour: draft.hour, weekday: draft.weekday, email: email.trim() === '' ? null : email.trim() });
      setCurrent(view);
      setNotice(view.frequency === 'off' ? 'No scheduled refresh.' : `Saved: ${FREQUENCY_LABELS[view.frequency].toLowerCase()}, under your account.`);
    });
  const timed = draft.frequency === 'daily' || draft.frequency === 'weekly';

  return (
    <section aria-label="Schedule">
      <div className="row">
        <Field label="Refresh saved queries">
          <Dropdown value={FREQUENCY_LABELS[draft.frequency]} selectedOptions={[draft.frequency]} onOptionSelect={(_, data) => set({ frequency: (data.optionValue ?? draft.frequency) as RefreshSchedule['frequency'] })}>
            {REFRESH_FREQUENCIES.map((frequency) => (
              <Option key={frequency} value={frequency}>
                {FREQUENCY_LABELS[frequency]}
              </Option>
            ))}
          </Dropdown>
        </Field>
        {draft.frequency === 'weekly' ? (
          <Field label="On">
            <Dropdown value={titleCase(draft.weekday)} selectedOptions={[draft.weekday]} onOptionSelect={(_, data) => set({ weekday: (data.optionValue ?? draft.weekday) as RefreshSchedule['weekday'] })}>
              {WEEKDAYS.map((day) => (
                <Option key={day} value={day}>
                  {titleCase(day)}
                </Option>
              ))}
            </Dropdown>
          </Field>
        ) : null}
        {timed ? (
          <Field label={`At (${current.timeZone})`}>
            <Dropdown value={hourLabel(draft.hour)} selectedOptions={[String(draft.hour)]} onOptionSelect={(_, data) => set({ hour: Number(data.optionValue ?? draft.hour) })}>
              {Array.from({ length: 24 }, (_, hour) => (
                <Option key={hour} value={String(hour)}>
                  {hourLabel(hour)}
                </Option>
              ))}
            </Dropdown>
          </Field>
        ) : null}
      </div>
      <Field label="E-mail failures to (optional)" hint="A scheduled run that fails also writes to the sheet “OrgIndex log”">
        <Input type="email" value={email} onChange={(_, data) => setEmail(data.value)} />
      </Field>
      <div className="row">
        <Button appearance="primary" disabled={busy} onClick={() => void save()}>
          Save schedule
        </Button>
      </div>
      {current.frequency !== 'off' && !current.mine ? <Caption1>Another user set this schedule: it runs under their account until someone saves a new one.</Caption1> : null}
      <Notice intent="success" text={notice} />
      <Notice intent="error" text={error} />
    </section>
  );
}

export function RefreshPanel({ saved, visible }: { saved: SavedQueriesHost; visible: boolean }) {
  const [queries, setQueries] = useState<SavedQuerySummary[] | null>(null);
  const [report, setReport] = useState<RefreshReport | null>(null);
  const { busy, error, run } = useAction();
  const reload = useCallback(() => run(async () => setQueries(await saved.list())), [saved, run]);
  // Queries are inserted from the other tabs: read the list again whenever this tab is shown.
  useEffect(() => {
    if (visible) void reload();
  }, [visible, reload]);

  const refreshAll = () =>
    run(async () => {
      setReport(null);
      setReport(await saved.refreshAll());
      setQueries(await saved.list());
    });
  const remove = (id: string) =>
    run(async () => {
      await saved.remove(id);
      setQueries(await saved.list());
    });

  return (
    <section aria-label="Saved queries">
      {queries && queries.length > 0 ? (
        // A list, not a table: a sidebar is 300 px wide.
        <ul aria-label="Saved queries" className="saved-queries">
          {queries.map((query) => (
            <li key={query.id}>
              <Text weight="semibold">{query.target}</Text> <Text>{query.description}</Text>
              <br />
              <Caption1>
                {query.last_refreshed ? `Refreshed ${new Date(query.last_refreshed).toLocaleString()}` : 'Never refreshed'} · {query.status ?? ''}
              </Caption1>{' '}
              <Button size="small" appearance="subtle" disabled={busy} aria-label={`Remove the saved query at ${query.target}`} onClick={() => void remove(query.id)}>
                Remove
              </Button>
            </li>
          ))}
        </ul>
      ) : (
        <Caption1>{queries ? 'No saved queries yet: build a search or a count, then “Insert as refreshable values”.' : 'Reading saved queries…'}</Caption1>
      )}
      <div className="row">
        <Button disabled={busy || !queries || queries.length === 0} onClick={() => void refreshAll()}>
          Refresh all now
        </Button>
      </div>
      <Notice intent={report && (report.failed.length > 0 || report.skipped) ? 'warning' : 'success'} text={report ? reportText(report) : null} />
      <Notice intent="error" text={error} />
      {saved.schedule ? <ScheduleForm schedule={saved.schedule} visible={visible} /> : <Caption1>Schedule refreshes with `orgindex refresh` from cron or a CI scheduler.</Caption1>}
    </section>
  );
}
