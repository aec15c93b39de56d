import { Placeholder } from '@/lib/components/Placeholder';

export default function DatasetsPage() {
  return (
    <Placeholder title="Datasets">
      <p>
        Upload a JSON or CSV dataset, map its columns to a program's input and output DataModels,
        and preview rows validated against them.
      </p>
      <p>This page arrives with the Studio API (issue #5).</p>
    </Placeholder>
  );
}
