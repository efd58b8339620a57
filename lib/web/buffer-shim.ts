// Node's Buffer for the dependencies that expect it as a global (esbuild `inject`, browser bundle only).
export { Buffer } from 'buffer/index.js';
