/**
 * `URL` and `URLSearchParams` in plain JS, the same in every backend. The WHATWG parser's
 * common paths: special schemes (http, https, ws, wss, ftp, file) with authority, port and dot-segment
 * resolution, relative references against a base, opaque paths (`mailto:`, `data:`), percent-encoding of
 * each component, and a live `searchParams`. Linear in the input (no backtracking regex), so a giant input
 * costs only its length. Not done: IDNA (a non-ASCII host stays as given, lowercased), IPv4 number forms.
 *
 * Spliced into the globals source's builder, built on first use (uses utf8Encode / utf8Decode, and the
 * SymbolIterator / SymbolToStringTag read when the prelude was evaluated).
 */
export const URL_SOURCE = String.raw`
  const SPECIAL_PORTS = { __proto__: null, 'http:': '80', 'https:': '443', 'ws:': '80', 'wss:': '443', 'ftp:': '21', 'file:': '' };
  const HEX = '0123456789ABCDEF';
  function invalidUrl(input) {
    const e = new TypeErrorCtor('Invalid URL' + (input !== undefined ? ': ' + ReflectApply(stringSlice, StringCtor(input), [0, 200]) : ''));
    ObjectDefineProperty(e, 'code', { __proto__: null, value: 'ERR_INVALID_URL', writable: true, configurable: true });
    return e;
  }
  /** Percent-encode every byte of s outside the set keep(code) allows (ASCII only is ever kept). */
  function percentEncode(s, keep) {
    let out = '';
    for (let i = 0; i < s.length; i++) {
      const c = charCodeOf(s, i);
      if (c < 0x80 && (c > 0x20 || (c === 0x20 && keep === keepOpaque)) && c !== 0x7f && keep(c)) { out += s[i]; continue; }
      if (c === 0x25 && i + 2 < s.length + 0 && isHex(s[i + 1]) && isHex(s[i + 2])) { out += '%'; continue; }
      let ch = s[i];
      if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) { ch += s[i + 1]; i++; }
      const bytes = utf8Encode(ch);
      for (let j = 0; j < bytes.length; j++) out += '%' + HEX[bytes[j] >> 4] + HEX[bytes[j] & 15];
    }
    return out;
  }
  function isHex(ch) { return ch !== undefined && ReflectApply(stringIndexOf, '0123456789abcdefABCDEF', [ch]) >= 0; }
  function percentDecode(s) {
    if (ReflectApply(stringIndexOf, s, ['%']) < 0) return s;
    const bytes = list();
    let out = '';
    for (let i = 0; i < s.length; i++) {
      if (s[i] === '%' && isHex(s[i + 1]) && isHex(s[i + 2])) {
        put(bytes, NumberParseInt(s[i + 1] + s[i + 2], 16)); i += 2; continue;
      }
      if (bytes.length) { out += utf8Decode(bytes, false); bytes.length = 0; }
      out += s[i];
    }
    if (bytes.length) out += utf8Decode(bytes, false);
    return out;
  }
  // Code sets: which ASCII characters a component keeps as they are.
  const keepPath = function (c) { return c !== 0x22 && c !== 0x23 && c !== 0x3c && c !== 0x3e && c !== 0x3f && c !== 0x60 && c !== 0x7b && c !== 0x7d; };
  const keepOpaque = function (c) { return true; };
  const keepQuery = function (c) { return c !== 0x22 && c !== 0x23 && c !== 0x3c && c !== 0x3e; };
  const keepSpecialQuery = function (c) { return keepQuery(c) && c !== 0x27; };
  const keepFragment = function (c) { return c !== 0x22 && c !== 0x3c && c !== 0x3e && c !== 0x60; };
  const keepUserinfo = function (c) { return keepPath(c) && c !== 0x2f && c !== 0x3a && c !== 0x3b && c !== 0x3d && c !== 0x40 && c !== 0x5b && c !== 0x5c && c !== 0x5d && c !== 0x5e && c !== 0x7c; };
  function lower(s) {
    let out = '';
    for (let i = 0; i < s.length; i++) { const c = charCodeOf(s, i); out += c >= 65 && c <= 90 ? StringFromCharCode(c + 32) : s[i]; }
    return out;
  }
  function cleanInput(s) {
    let start = 0, end = s.length;
    while (start < end && charCodeOf(s, start) <= 0x20) start++;
    while (end > start && charCodeOf(s, end - 1) <= 0x20) end--;
    let out = '';
    for (let i = start; i < end; i++) { const ch = s[i]; if (ch !== '\t' && ch !== '\n' && ch !== '\r') out += ch; }
    return out;
  }
  function schemeOf(s) {
    const c0 = charCodeOf(s, 0);
    if (!((c0 >= 65 && c0 <= 90) || (c0 >= 97 && c0 <= 122))) return -1;
    for (let i = 1; i < s.length; i++) {
      const c = charCodeOf(s, i);
      if (c === 0x3a) return i;
      const ok = (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 0x2b || c === 0x2d || c === 0x2e;
      if (!ok) return -1;
    }
    return -1;
  }
  function parseHost(raw, special, input) {
    if (raw[0] === '[') {
      if (raw[raw.length - 1] !== ']') throw invalidUrl(input);
      for (let i = 1; i < raw.length - 1; i++) if (!isHex(raw[i]) && raw[i] !== ':' && raw[i] !== '.') throw invalidUrl(input);
      return lower(raw);
    }
    if (!special) return percentEncode(raw, function (c) { return c !== 0x20 && c !== 0x23 && c !== 0x3c && c !== 0x3e && c !== 0x3f && c !== 0x40 && c !== 0x5b && c !== 0x5c && c !== 0x5d && c !== 0x5e && c !== 0x7c && c !== 0x2f && c !== 0x3a; });
    const host = lower(percentDecode(raw));
    if (host === '' ) throw invalidUrl(input);
    for (let i = 0; i < host.length; i++) {
      const ch = host[i];
      if (ch <= ' ' || ch === '#' || ch === '%' || ch === '/' || ch === ':' || ch === '<' || ch === '>' || ch === '?' || ch === '@' || ch === '[' || ch === '\\' || ch === ']' || ch === '^' || ch === '|') throw invalidUrl(input);
    }
    return host;
  }
  /** Resolve '.' and '..' segments; a trailing '.' or '..' leaves a trailing slash. */
  function normalisePath(segments) {
    const out = list();
    for (let i = 0; i < segments.length; i++) {
      const seg = segments[i];
      const low = seg.length === 3 || seg.length === 4 || seg.length === 6 ? lower(seg) : seg;
      const dot = seg === '.' || low === '%2e', dotdot = seg === '..' || low === '.%2e' || low === '%2e.' || low === '%2e%2e';
      const last = i === segments.length - 1;
      if (dotdot) { if (out.length) out.length--; if (last) put(out, ''); }
      else if (dot) { if (last) put(out, ''); }
      else put(out, seg);
    }
    return out;
  }
  function splitPath(path, special) {
    const segs = list();
    let cur = '';
    for (let i = 0; i < path.length; i++) {
      const ch = path[i];
      if (ch === '/' || (special && ch === '\\')) { put(segs, cur); cur = ''; } else cur += ch;
    }
    put(segs, cur);
    return segs;
  }
  function joinPath(segs) { let s = ''; for (let i = 0; i < segs.length; i++) s += '/' + percentEncode(segs[i], keepPath); return s; }
  /** Split off '#fragment' and '?query' from the rest. */
  function splitTail(s) {
    let hash = null, query = null, rest = s;
    const h = ReflectApply(stringIndexOf, rest, ['#']);
    if (h >= 0) { hash = ReflectApply(stringSlice, rest, [h + 1]); rest = ReflectApply(stringSlice, rest, [0, h]); }
    const q = ReflectApply(stringIndexOf, rest, ['?']);
    if (q >= 0) { query = ReflectApply(stringSlice, rest, [q + 1]); rest = ReflectApply(stringSlice, rest, [0, q]); }
    return { rest: rest, query: query, hash: hash };
  }
  function parseUrl(input, base) {
    const s = cleanInput(StringCtor(input));
    const colon = schemeOf(s);
    const r = { protocol: '', username: '', password: '', hostname: '', port: '', pathname: '', search: '', hash: '', opaque: false, hasHost: false };
    let rest;
    if (colon > 0) {
      r.protocol = lower(ReflectApply(stringSlice, s, [0, colon + 1]));
      rest = ReflectApply(stringSlice, s, [colon + 1]);
      const special = r.protocol in SPECIAL_PORTS;
      // "http:foo" against an http base is relative, as browsers read it.
      if (special && base && base.protocol === r.protocol && rest[0] !== '/' && rest[0] !== '\\') return resolveRelative(rest, base, input);
      const tail = splitTail(rest);
      let body = tail.rest;
      const slashes = special ? (body[0] === '/' || body[0] === '\\') && (body[1] === '/' || body[1] === '\\') : body[0] === '/' && body[1] === '/';
      if (special && !slashes && r.protocol !== 'file:') {
        // "https:example.com" and "https:/example.com": the host follows the slashes that are there.
        let k = 0;
        while (body[k] === '/' || body[k] === '\\') k++;
        body = '//' + ReflectApply(stringSlice, body, [k]);
      }
      if (slashes || (special && r.protocol !== 'file:')) {
        let k = 2;
        while (special && r.protocol !== 'file:' && (body[k] === '/' || body[k] === '\\')) k++;
        let end = k;
        while (end < body.length && body[end] !== '/' && !(special && body[end] === '\\')) end++;
        parseAuthority(r, ReflectApply(stringSlice, body, [k, end]), special, input);
        body = ReflectApply(stringSlice, body, [end]);
        r.pathname = joinPath(normalisePath(dropFirst(splitPath(body, special))));
        if (r.pathname === '' && special) r.pathname = '/';
      } else if (r.protocol === 'file:') {
        r.hasHost = true;
        r.pathname = joinPath(normalisePath(dropFirst(splitPath(body, true))));
        if (r.pathname === '') r.pathname = '/';
      } else if (body[0] === '/') {
        r.pathname = joinPath(normalisePath(dropFirst(splitPath(body, false))));
      } else {
        r.opaque = true;
        r.pathname = percentEncode(body, keepOpaque);
      }
      setTail(r, tail);
      return r;
    }
    if (!base) throw invalidUrl(input);
    return resolveRelative(s, base, input);
  }
  function parseAuthority(r, auth, special, input) {
    r.hasHost = true;
    const at = auth.lastIndexOf('@');
    if (at >= 0) {
      const info = ReflectApply(stringSlice, auth, [0, at]);
      const c = ReflectApply(stringIndexOf, info, [':']);
      r.username = percentEncode(c >= 0 ? ReflectApply(stringSlice, info, [0, c]) : info, keepUserinfo);
      r.password = c >= 0 ? percentEncode(ReflectApply(stringSlice, info, [c + 1]), keepUserinfo) : '';
      auth = ReflectApply(stringSlice, auth, [at + 1]);
    }
    let hostPart = auth, port = '';
    const close = ReflectApply(stringIndexOf, auth, [']']);
    const pc = auth.lastIndexOf(':');
    if (pc >= 0 && pc > close) { hostPart = ReflectApply(stringSlice, auth, [0, pc]); port = ReflectApply(stringSlice, auth, [pc + 1]); }
    if (port !== '') {
      for (let i = 0; i < port.length; i++) { const c = charCodeOf(port, i); if (c < 48 || c > 57) throw invalidUrl(input); }
      const n = NumberParseInt(port, 10);
      if (n > 65535) throw invalidUrl(input);
      port = StringCtor(n);
      if (SPECIAL_PORTS[r.protocol] === port) port = '';
    }
    if (hostPart === '' && special && r.protocol !== 'file:') throw invalidUrl(input);
    r.hostname = hostPart === '' ? '' : parseHost(hostPart, special, input);
    r.port = port;
  }
  function setTail(r, tail) {
    const special = r.protocol in SPECIAL_PORTS;
    r.search = tail.query === null || tail.query === '' ? '' : '?' + percentEncode(tail.query, special ? keepSpecialQuery : keepQuery);
    r.hash = tail.hash === null || tail.hash === '' ? '' : '#' + percentEncode(tail.hash, keepFragment);
  }
  function resolveRelative(s, base, input) {
    const special = base.protocol in SPECIAL_PORTS;
    const r = { protocol: base.protocol, username: base.username, password: base.password, hostname: base.hostname, port: base.port, pathname: base.pathname, search: base.search, hash: '', opaque: base.opaque, hasHost: base.hasHost };
    if (base.opaque && s[0] !== '#') throw invalidUrl(input);
    const tail = splitTail(s);
    const body = tail.rest;
    const slash = function (ch) { return ch === '/' || (special && ch === '\\'); };
    if (slash(body[0]) && slash(body[1])) {
      // scheme-relative: a new authority
      return parseUrl(base.protocol + s, undefined);
    }
    if (body === '') {
      if (tail.query !== null) setTail(r, tail);
      else { r.hash = tail.hash ? '#' + percentEncode(tail.hash, keepFragment) : ''; return r; }
      return r;
    }
    let segs;
    if (slash(body[0])) segs = dropFirst(splitPath(body, special));
    else {
      const baseSegs = dropFirst(splitPath(base.pathname, special));
      baseSegs.length = baseSegs.length ? baseSegs.length - 1 : 0;
      segs = baseSegs;
      const more = splitPath(body, special);
      for (let i = 0; i < more.length; i++) put(segs, more[i]);
    }
    r.pathname = joinPath(normalisePath(segs));
    setTail(r, tail);
    return r;
  }
  function dropFirst(a) { const out = list(); for (let i = 1; i < a.length; i++) put(out, a[i]); return out; }
  function serialise(r) {
    let out = r.protocol;
    if (r.hasHost) {
      out += '//';
      if (r.username || r.password) out += r.username + (r.password ? ':' + r.password : '') + '@';
      out += r.hostname + (r.port ? ':' + r.port : '');
    }
    return out + r.pathname + r.search + r.hash;
  }

  let attachParams, reparseParams, setSearchFromParams;
  class URLSearchParamsImpl {
    #list = list();
    #url = null;
    constructor(init) {
      if (init === undefined || init === null) return;
      if (typeof init === 'object' || typeof init === 'function') {
        if (typeof init[SymbolIterator] === 'function') {
          for (const pair of init) {
            const p = [...pair];
            if (p.length !== 2) throw new TypeErrorCtor('Each query pair must be an iterable [name, value] tuple');
            put(this.#list, [StringCtor(p[0]), StringCtor(p[1])]);
          }
        } else {
          const keys = ObjectKeys(init);
          for (let i = 0; i < keys.length; i++) put(this.#list, [keys[i], StringCtor(init[keys[i]])]);
        }
        return;
      }
      this.#parse(StringCtor(init));
    }
    #parse(s) {
      this.#list = list();
      if (s[0] === '?') s = ReflectApply(stringSlice, s, [1]);
      let start = 0;
      for (let i = 0; i <= s.length; i++) {
        if (i === s.length || s[i] === '&') {
          const part = ReflectApply(stringSlice, s, [start, i]);
          start = i + 1;
          if (part === '') continue;
          const eq = ReflectApply(stringIndexOf, part, ['=']);
          const name = eq >= 0 ? ReflectApply(stringSlice, part, [0, eq]) : part, value = eq >= 0 ? ReflectApply(stringSlice, part, [eq + 1]) : '';
          put(this.#list, [formDecode(name), formDecode(value)]);
        }
      }
    }
    // Module-private hooks for URL (static blocks, so nothing extra is visible on the class).
    static {
      attachParams = function (params, url, search) { params.#url = url; params.#parse(search); };
      reparseParams = function (params, search) { params.#parse(search); };
    }
    #update() { if (this.#url) setSearchFromParams(this.#url, this.toString()); }
    get size() { return this.#list.length; }
    append(name, value) { put(this.#list, [StringCtor(name), StringCtor(value)]); this.#update(); }
    delete(name, value) {
      name = StringCtor(name);
      const keep = list();
      for (let i = 0; i < this.#list.length; i++) { const p = this.#list[i]; if (p[0] !== name || (value !== undefined && p[1] !== StringCtor(value))) put(keep, p); }
      this.#list = keep; this.#update();
    }
    get(name) { name = StringCtor(name); for (let i = 0; i < this.#list.length; i++) if (this.#list[i][0] === name) return this.#list[i][1]; return null; }
    getAll(name) { name = StringCtor(name); const out = []; for (let i = 0; i < this.#list.length; i++) if (this.#list[i][0] === name) put(out, this.#list[i][1]); return out; }
    has(name, value) { name = StringCtor(name); for (let i = 0; i < this.#list.length; i++) if (this.#list[i][0] === name && (value === undefined || this.#list[i][1] === StringCtor(value))) return true; return false; }
    set(name, value) {
      name = StringCtor(name); value = StringCtor(value);
      const out = list(); let done = false;
      for (let i = 0; i < this.#list.length; i++) {
        const p = this.#list[i];
        if (p[0] !== name) put(out, p);
        else if (!done) { put(out, [name, value]); done = true; }
      }
      if (!done) put(out, [name, value]);
      this.#list = out; this.#update();
    }
    sort() {
      // A stable insertion sort by name (code units), as the standard asks.
      const a = this.#list;
      for (let i = 1; i < a.length; i++) { const x = a[i]; let j = i - 1; while (j >= 0 && a[j][0] > x[0]) { a[j + 1] = a[j]; j--; } a[j + 1] = x; }
      this.#update();
    }
    forEach(fn, thisArg) { for (let i = 0; i < this.#list.length; i++) ReflectApply(fn, thisArg, [this.#list[i][1], this.#list[i][0], this]); }
    *entries() { for (let i = 0; i < this.#list.length; i++) yield [this.#list[i][0], this.#list[i][1]]; }
    *keys() { for (let i = 0; i < this.#list.length; i++) yield this.#list[i][0]; }
    *values() { for (let i = 0; i < this.#list.length; i++) yield this.#list[i][1]; }
    [SymbolIterator]() { return this.entries(); }
    toString() {
      let out = '';
      for (let i = 0; i < this.#list.length; i++) out += (i ? '&' : '') + formEncode(this.#list[i][0]) + '=' + formEncode(this.#list[i][1]);
      return out;
    }
    get [SymbolToStringTag]() { return 'URLSearchParams'; }
  }
  function formDecode(s) {
    let t = '';
    for (let i = 0; i < s.length; i++) t += s[i] === '+' ? ' ' : s[i];
    return percentDecode(t);
  }
  function formEncode(s) {
    let out = '';
    const bytes = utf8Encode(s);
    for (let i = 0; i < bytes.length; i++) {
      const c = bytes[i];
      if ((c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 0x2a || c === 0x2d || c === 0x2e || c === 0x5f) out += StringFromCharCode(c);
      else if (c === 0x20) out += '+';
      else out += '%' + HEX[c >> 4] + HEX[c & 15];
    }
    return out;
  }

  class URLImpl {
    #r; #params;
    constructor(url, base) {
      if (arguments.length === 0) throw new TypeErrorCtor('The "url" argument must be specified');
      const b = base === undefined ? undefined : parseUrl(base instanceof URLImpl ? base.href : StringCtor(base), undefined);
      this.#r = parseUrl(url instanceof URLImpl ? url.href : url, b);
      this.#params = new URLSearchParamsImpl();
      attachParams(this.#params, this, this.#r.search);
    }
    static canParse(url, base) { try { new URLImpl(url, base); return true; } catch (_) { return false; } }
    static parse(url, base) { try { return new URLImpl(url, base); } catch (_) { return null; } }
    static { setSearchFromParams = function (url, text) { url.#r.search = text === '' ? '' : '?' + text; }; }
    get href() { return serialise(this.#r); }
    set href(v) { this.#r = parseUrl(v, undefined); reparseParams(this.#params, this.#r.search); }
    get origin() {
      const r = this.#r;
      if (r.protocol === 'file:' || !(r.protocol in SPECIAL_PORTS)) return 'null';
      return r.protocol + '//' + r.hostname + (r.port ? ':' + r.port : '');
    }
    get protocol() { return this.#r.protocol; }
    set protocol(v) {
      const p = lower(StringCtor(v));
      const next = p[p.length - 1] === ':' ? p : p + ':';
      if ((next in SPECIAL_PORTS) === (this.#r.protocol in SPECIAL_PORTS) && schemeOf(next) === next.length - 1) {
        this.#r.protocol = next;
        if (SPECIAL_PORTS[next] === this.#r.port) this.#r.port = '';
      }
    }
    get username() { return this.#r.username; }
    set username(v) { if (this.#r.hasHost && this.#r.hostname) this.#r.username = percentEncode(StringCtor(v), keepUserinfo); }
    get password() { return this.#r.password; }
    set password(v) { if (this.#r.hasHost && this.#r.hostname) this.#r.password = percentEncode(StringCtor(v), keepUserinfo); }
    get host() { return this.#r.hostname + (this.#r.port ? ':' + this.#r.port : ''); }
    set host(v) { try { const t = parseUrl(this.#r.protocol + '//' + StringCtor(v), undefined); this.#r.hostname = t.hostname; this.#r.port = t.port; } catch (_) {} }
    get hostname() { return this.#r.hostname; }
    set hostname(v) { try { this.#r.hostname = parseUrl(this.#r.protocol + '//' + StringCtor(v), undefined).hostname; } catch (_) {} }
    get port() { return this.#r.port; }
    set port(v) {
      const s = StringCtor(v);
      if (s === '') { this.#r.port = ''; return; }
      let digits = '';
      for (let i = 0; i < s.length && s[i] >= '0' && s[i] <= '9'; i++) digits += s[i];
      if (digits === '') return;
      const n = NumberParseInt(digits, 10);
      if (n > 65535) return;
      this.#r.port = SPECIAL_PORTS[this.#r.protocol] === StringCtor(n) ? '' : StringCtor(n);
    }
    get pathname() { return this.#r.pathname; }
    set pathname(v) {
      if (this.#r.opaque) return;
      const special = this.#r.protocol in SPECIAL_PORTS;
      let s = StringCtor(v);
      if (s[0] !== '/' && !(special && s[0] === '\\')) s = '/' + s;
      this.#r.pathname = joinPath(normalisePath(dropFirst(splitPath(s, special))));
    }
    get search() { return this.#r.search; }
    set search(v) {
      const s = StringCtor(v);
      setTail(this.#r, { query: s[0] === '?' ? ReflectApply(stringSlice, s, [1]) : s, hash: this.#r.hash ? ReflectApply(stringSlice, this.#r.hash, [1]) : null });
      reparseParams(this.#params, this.#r.search);
    }
    get searchParams() { return this.#params; }
    get hash() { return this.#r.hash; }
    set hash(v) { const s = StringCtor(v); const h = s[0] === '#' ? ReflectApply(stringSlice, s, [1]) : s; this.#r.hash = h === '' ? '' : '#' + percentEncode(h, keepFragment); }
    toString() { return this.href; }
    toJSON() { return this.href; }
    get [SymbolToStringTag]() { return 'URL'; }
  }
  ObjectDefineProperty(URLImpl, 'name', { __proto__: null, value: 'URL' });
  ObjectDefineProperty(URLSearchParamsImpl, 'name', { __proto__: null, value: 'URLSearchParams' });
  installGlobal('URL', URLImpl);
  installGlobal('URLSearchParams', URLSearchParamsImpl);
`
