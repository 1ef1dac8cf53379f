/**
 * `URL` and `URLSearchParams`: the WHATWG URL Standard's reference implementation (`whatwg-url`, the one
 * jsdom uses), bundled into the guest: IDNA (UTS #46, punycode), IPv4 number forms, IPv6 compression, every
 * percent-encode set and relative resolution, as browsers and Node have them. Its `webidl-conversions`
 * dependency is replaced by `url-conversions.ts` (it reads what the lockdown removed); its TextEncoder and
 * TextDecoder are the guest's own (`text.ts`, injected at bundle time).
 *
 * Loaded on first use (the standard globals are built lazily, globals.ts): evaluating it and its Unicode
 * tables in every fresh context would cost every run, and most programs never touch a URL.
 */
export function urlClasses(): { URL: unknown; URLSearchParams: unknown } {
  const lib = require('whatwg-url')
  return { URL: lib.URL, URLSearchParams: lib.URLSearchParams }
}
