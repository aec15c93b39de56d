import './Placeholder.css';

/** A page that waits for the API (issue #5); says what will be here. */
export function Placeholder({ title, children }: { title: string; children: React.ReactNode }) {
  return (
    <section className="placeholder">
      <h1>{title}</h1>
      <div className="placeholder-body">{children}</div>
    </section>
  );
}
