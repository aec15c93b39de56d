import { useQueries, useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { Link } from 'react-router';
import { listPrograms, programsKey } from '@/lib/api/ops/programsList';
import { listVersions, versionsKey } from '@/lib/api/ops/programsVersionsList';
import { listProviders, providersKey } from '@/lib/api/ops/providersList';
import { useCatalogue } from '../api/catalogue';
import {
  hasScorers,
  judgeIds,
  scoredBy,
  type ProgramVersionName,
  type ScoredByLine,
} from '../model/scoredBy';

/**
 * The program versions a run's judges name, by id. A judge names a version by its id
 * alone, so this reads the user's programs (the first page) and their versions, and only
 * when some judge is a program.
 */
function useProgramVersions(ids: number[]): ReadonlyMap<number, ProgramVersionName> {
  const programs = useQuery({
    queryKey: programsKey,
    queryFn: listPrograms,
    enabled: ids.length > 0,
  });
  const versions = useQueries({
    queries: (ids.length > 0 ? (programs.data ?? []) : []).map((program) => ({
      queryKey: versionsKey(program.id),
      queryFn: () => listVersions(program.id),
    })),
  });
  const names = new Map<number, ProgramVersionName>();
  (programs.data ?? []).forEach((program, index) => {
    for (const version of versions[index]?.data ?? [])
      if (ids.includes(version.id))
        names.set(version.id, { program: program.name, number: version.number });
  });
  return names;
}

function Line({ line }: { line: ScoredByLine }) {
  return (
    <li>
      <b>{line.slot === 'reward' ? 'Reward' : 'Metric'}:</b>{' '}
      {line.link ? <Link to={line.link}>{line.title}</Link> : line.title}
      {line.details.length > 0 && (
        <ul>
          {line.details.map((detail, i) => (
            <li key={i}>{detail}</li>
          ))}
        </ul>
      )}
    </li>
  );
}

/**
 * What scored the run, in words: its reward and each metric (a code reward at its pinned
 * version, linking to the library; field rules; a judge's scale, criteria and provider; a
 * program judge's program and version), from its stored compile config.
 */
export function ScoredBy({ config }: { config: unknown }) {
  const ids = useMemo(() => judgeIds(config), [config]);
  const wanted = hasScorers(config);
  const catalogue = useCatalogue(wanted);
  const providers = useQuery({
    queryKey: providersKey,
    queryFn: listProviders,
    enabled: ids.providers.length > 0,
  });
  const programVersions = useProgramVersions(ids.programVersions);
  if (!wanted) return null;
  const lines = scoredBy(config, {
    catalogue: catalogue.data,
    providers: providers.data,
    programVersions,
  });
  return (
    <section className="card" aria-label="Scored by">
      <h2>Scored by</h2>
      <ul>
        {lines.map((line, i) => (
          <Line key={i} line={line} />
        ))}
      </ul>
    </section>
  );
}
