import { Placeholder } from '@/lib/components/Placeholder';

export default function ComparePage() {
  return (
    <Placeholder title="Compare">
      <p>
        Pick finished runs and compare their reward curves, metrics and final instructions side by
        side.
      </p>
      <p>This page arrives with the Studio API (issue #5).</p>
    </Placeholder>
  );
}
