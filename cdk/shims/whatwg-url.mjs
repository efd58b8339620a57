// node-fetch 2 (web3.js's and stateless.js's fetch) takes `URL` from Node's `url` module and falls
// back to whatwg-url only where that has none, which is never on nodejs22.x; bundling the real
// package parsed tr46's 260 KB Unicode table at every chain function's cold start for nothing
// (cdk/bundling.ts aliases it here). Node's own classes, should anything read them.
export const { URL, URLSearchParams } = globalThis;
export default { URL, URLSearchParams };
