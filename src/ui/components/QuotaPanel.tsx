/** Requests and results left this month, with bars; a warning under 10 %. Updated from every response's headers. */
import { Caption1, Field, MessageBar, MessageBarBody, ProgressBar } from '@fluentui/react-components';
import type { Quota } from '../../contract/errors.js';

function Meter({ label, remaining, limit }: { label: string; remaining: number | null; limit: number | null }) {
  if (remaining === null || limit === null || limit <= 0) return null;
  const share = remaining / limit;
  return (
    <Field label={`${label}: ${remaining.toLocaleString('en-US')} of ${limit.toLocaleString('en-US')} left`} validationState={share < 0.1 ? 'warning' : 'none'}>
      <ProgressBar value={share} max={1} color={share < 0.1 ? 'warning' : 'brand'} />
    </Field>
  );
}

/** The tier, read from the monthly request quota of the spec's public tier profile (10,000 · 50,000); other limits are a custom plan. */
function tierOf(quota: Quota): string {
  if (quota.requestsLimit === 10_000) return 'tier_1';
  if (quota.requestsLimit === 50_000) return 'tier_2';
  return quota.requestsLimit === null ? '' : 'custom';
}

export function QuotaPanel({ quota, local }: { quota: Quota | null; local: boolean }) {
  if (!quota) return <Caption1>{local ? 'Built-in sample: no key, no quota.' : 'Quota appears after the first request.'}</Caption1>;
  const low = [quota.requestsRemaining !== null && quota.requestsLimit ? quota.requestsRemaining / quota.requestsLimit : 1, quota.resultsRemaining !== null && quota.resultsLimit ? quota.resultsRemaining / quota.resultsLimit : 1].some((share) => share < 0.1);
  return (
    <section aria-label="Quota">
      {tierOf(quota) ? <Caption1>Tier: {tierOf(quota)}</Caption1> : null}
      <Meter label="Requests" remaining={quota.requestsRemaining} limit={quota.requestsLimit} />
      <Meter label="Results" remaining={quota.resultsRemaining} limit={quota.resultsLimit} />
      {quota.resetAt ? <Caption1>Resets {new Date(quota.resetAt).toUTCString().replace(/:\d\d GMT$/, ' UTC')}</Caption1> : null}
      {low ? (
        <MessageBar intent="warning">
          <MessageBarBody>Less than 10 % of this month’s quota is left: cached formulas keep working; new requests may fail.</MessageBarBody>
        </MessageBar>
      ) : null}
    </section>
  );
}
