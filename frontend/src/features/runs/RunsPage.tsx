import { Placeholder } from '@/lib/components/Placeholder';

export default function RunsPage() {
  return (
    <Placeholder title="Runs">
      <p>
        Launch a training run (program, dataset, reward, optimizer, epochs) and watch its batches,
        epoch logs and optimizer candidates live over the websocket.
      </p>
      <p>This page arrives with the Studio API (issue #5).</p>
    </Placeholder>
  );
}
