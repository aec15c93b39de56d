import type { FieldProblem } from '@/lib/api/errors';

/** The server's problems with one section of the form, each with the field path it names. */
export function Problems({ problems }: { problems: FieldProblem[] }) {
  if (problems.length === 0) return null;
  return (
    <div className="alert" role="alert">
      {problems.map((p) => (
        <div key={`${p.path}:${p.message}`}>
          {p.path && <span className="mono">{p.path}: </span>}
          {p.message}
        </div>
      ))}
    </div>
  );
}
