/**
 * The task pane (Excel) / sidebar (Sheets): tabs for Search, Enrich, Stats, Refresh (saved queries, where
 * the host has them) and Connection, the quota on top, Refresh and Pin as values below. Host-neutral: everything it does to a sheet goes through Host.
 */
import { Button, FluentProvider, Tab, TabList, Text, Tooltip, makeStyles, tokens, webLightTheme } from '@fluentui/react-components';
import { useEffect, useState } from 'react';
import type { Quota } from '../contract/errors.js';
import type { SheetFunctions } from '../sheet/functions.js';
import { ConnectionPanel } from './components/ConnectionPanel.js';
import { EnrichPanel, NO_DATA_TYPES } from './components/EnrichPanel.js';
import { Notice } from './components/Notice.js';
import { QuotaPanel } from './components/QuotaPanel.js';
import { RefreshPanel } from './components/RefreshPanel.js';
import { SearchPanel } from './components/SearchPanel.js';
import { StatsPanel } from './components/StatsPanel.js';
import { useAction } from './components/use-async.js';
import type { Host } from './host.js';

const useStyles = makeStyles({
  root: {
    display: 'flex',
    flexDirection: 'column',
    gap: tokens.spacingVerticalM,
    padding: tokens.spacingHorizontalM,
    minWidth: '280px',
    maxWidth: '640px',
    '& header': { display: 'flex', flexDirection: 'column', gap: tokens.spacingVerticalXS },
    '& form, & section': { display: 'flex', flexDirection: 'column', gap: tokens.spacingVerticalS },
    '& .row': { display: 'flex', flexWrap: 'wrap', gap: tokens.spacingHorizontalS, alignItems: 'end' },
    // Chips wrap in a narrow pane instead of running off its edge.
    '& .fui-TagGroup': { flexWrap: 'wrap', rowGap: tokens.spacingVerticalXS },
    '& .grid': { overflowX: 'auto', maxHeight: '320px', overflowY: 'auto' },
    '& .grid th, & .grid td': { overflowWrap: 'anywhere' },
    '& .saved-queries': { listStyle: 'none', margin: 0, padding: 0, display: 'flex', flexDirection: 'column', gap: tokens.spacingVerticalS },
    '& .formula': { fontSize: tokens.fontSizeBase200, wordBreak: 'break-all', backgroundColor: tokens.colorNeutralBackground3, padding: tokens.spacingHorizontalXS },
  },
});

export type TabId = 'search' | 'enrich' | 'stats' | 'refresh' | 'connection';

export function App({ host, functions, initialTab = 'search' }: { host: Host; functions: SheetFunctions; initialTab?: TabId }) {
  const styles = useStyles();
  const [tab, setTab] = useState<TabId>(host.connection().backend === 'remote' && !host.connection().apiKey ? 'connection' : initialTab === 'refresh' && !host.savedQueries ? 'search' : initialTab);
  const [quota, setQuota] = useState<Quota | null>(null);
  // Bumped when the connection changes, so panels take the new backend.
  const [revision, setRevision] = useState(0);
  const { busy, error, run } = useAction();
  // A new connection starts from what is known about its quota (nothing, until its first response).
  useEffect(() => {
    setQuota(host.lastQuota());
    return host.onQuota(setQuota);
  }, [host, revision]);
  // Said once: a formula asked for organization cards and this Excel showed plain columns.
  const [cardsFellBack, setCardsFellBack] = useState(() => host.cards?.fellBack() ?? false);
  const [cardNoticeSeen, setCardNoticeSeen] = useState(false);
  useEffect(() => host.cards?.onFellBack(() => setCardsFellBack(true)), [host]);
  const connection = host.connection();

  return (
    <FluentProvider theme={webLightTheme}>
      <main className={styles.root}>
        <header>
          <Text as="h1" weight="semibold" size={400}>
            OrgIndex
          </Text>
          <Text size={200}>
            {connection.backend === 'remote' ? connection.serviceUrl : 'built-in sample'} · {host.label}
          </Text>
          <QuotaPanel quota={quota} local={connection.backend !== 'remote'} />
          {cardsFellBack && !cardNoticeSeen ? (
            <Notice intent="warning" text={`${NO_DATA_TYPES}: ORG.FETCH(…, "as=card") shows the columns as values instead of organization cards.`} onDismiss={() => setCardNoticeSeen(true)} />
          ) : null}
        </header>
        <TabList selectedValue={tab} onTabSelect={(_, data) => setTab(data.value as TabId)} size="small" aria-label="OrgIndex">
          <Tab value="search">Search</Tab>
          <Tab value="enrich">Enrich</Tab>
          <Tab value="stats">Stats</Tab>
          {host.savedQueries ? <Tab value="refresh">Refresh</Tab> : null}
          <Tab value="connection">Connection</Tab>
        </TabList>
        {/* Every panel stays mounted (hidden when not chosen): a search being built or an enrichment running — with its Cancel — survives a look at another tab. */}
        <div role="tabpanel" aria-label="Search" hidden={tab !== 'search'}>
          <SearchPanel host={host} functions={functions} revision={revision} />
        </div>
        <div role="tabpanel" aria-label="Enrich" hidden={tab !== 'enrich'}>
          <EnrichPanel host={host} functions={functions} />
        </div>
        <div role="tabpanel" aria-label="Stats" hidden={tab !== 'stats'}>
          <StatsPanel host={host} functions={functions} />
        </div>
        {host.savedQueries ? (
          <div role="tabpanel" aria-label="Refresh" hidden={tab !== 'refresh'}>
            <RefreshPanel saved={host.savedQueries} visible={tab === 'refresh'} />
          </div>
        ) : null}
        <div role="tabpanel" aria-label="Connection" hidden={tab !== 'connection'}>
          <ConnectionPanel host={host} onSaved={() => setRevision(revision + 1)} />
        </div>
        <footer className="row">
          <Tooltip content="Forget cached answers and recalculate every OrgIndex formula" relationship="description">
            <Button disabled={busy || !host.canWrite} onClick={() => void run(() => host.refresh())}>
              Refresh
            </Button>
          </Tooltip>
          <Tooltip content="Replace the selected formulas by their current values" relationship="description">
            <Button disabled={busy || !host.canWrite} onClick={() => void run(() => host.pinSelection())}>
              Pin as values
            </Button>
          </Tooltip>
          {error ? <Text role="alert">{error}</Text> : null}
        </footer>
      </main>
    </FluentProvider>
  );
}
