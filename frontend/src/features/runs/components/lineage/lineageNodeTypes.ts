import { CandidateNode } from './CandidateNode';

/** One component per node kind (one kind here), defined once so React Flow never remounts nodes. */
export const lineageNodeTypes = { candidate: CandidateNode };
