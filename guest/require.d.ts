// The guest's one CommonJS import: esbuild bundles it and evaluates it on the first `require` call, so
// `whatwg-url` (its IDNA tables included) loads only in a realm whose program touches URL.
declare function require(id: 'whatwg-url'): {
  URL: new (url: string, base?: string) => unknown
  URLSearchParams: new (init?: unknown) => unknown
}
