// Imported first by a worker thread run from the TypeScript sources (src/threads.ts): tsx's own
// `--import tsx` registers its loader on the main thread only (Node 20).
import { register } from 'tsx/esm/api';

register();
