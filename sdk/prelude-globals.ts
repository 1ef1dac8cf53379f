/**
 * The safe standard globals, implemented inside the sandbox in plain JS: `queueMicrotask`, `URL`,
 * `URLSearchParams`, `TextEncoder`, `TextDecoder`, `atob`, `btoa`, `structuredClone`. None of them reaches
 * the network or the host; they cost nothing but the program's own CPU and memory, which the run's limits
 * bound. (The timers are the prelude's own, sdk/prelude.ts: they need the run's bookkeeping.)
 *
 * They replace a realm's own (a container's Node) too: Node's are built in the runner's main realm, so what
 * they return fails `instanceof` in the program's realm (`structuredClone(d) instanceof Date` was false),
 * and every backend should answer the same.
 *
 * What is left out, on purpose: IDNA/punycode (a non-ASCII host is kept as percent-decoded text) and
 * TextDecoder labels other than UTF-8. Plain JS text spliced into the prelude's setup scope.
 */
import { URL_SOURCE } from './prelude-url.js'

export const GLOBALS_SOURCE = String.raw`
  function domError(name, message) {
    const e = new ErrorCtor(message);
    ObjectDefineProperty(e, 'name', { __proto__: null, value: name, writable: true, configurable: true });
    return e;
  }
  defineGlobal('queueMicrotask', function queueMicrotask(fn) {
    if (typeof fn !== 'function') throw new TypeErrorCtor('The "callback" argument must be a function');
    ReflectApply(promiseThen, promiseResolve(undefined), [function () { fn(); }]);
  }, true);
  // Read now: the classes below are defined when a program first touches one of them (buildStandardGlobals),
  // and by then the program may have replaced the global Symbol.
  const SymbolIterator = Symbol.iterator, SymbolToStringTag = Symbol.toStringTag;

  /**
   * The globals below are built on first use: evaluating them (classes with private fields, dozens of
   * methods) was half of the prelude's evaluation in each fresh context (~100 µs of the child's ~200), and
   * most programs touch none of them. Each name is an accessor on the global object until then; its getter
   * builds them all (once per realm) and puts back the same data property an eager install made, its setter
   * puts back the value assigned. Everything they use was captured before the program ran, so building
   * them after a program poisoned prototypes is the same as building them before.
   */
  function buildStandardGlobals() {
  const built = ObjectCreate(null);
  function installGlobal(name, value) {
    built[name] = value;
  }

  // --- UTF-8 -----------------------------------------------------------------------------------------
  function utf8Encode(s) {
    s = StringCtor(s);
    const out = new Uint8ArrayCtor(s.length * 3);
    let n = 0;
    for (let i = 0; i < s.length; i++) {
      let c = charCodeOf(s, i);
      if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
        const d = charCodeOf(s, i + 1);
        if (d >= 0xdc00 && d <= 0xdfff) { c = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00); i++; }
        else c = 0xfffd;
      } else if (c >= 0xd800 && c <= 0xdfff) c = 0xfffd;
      if (c < 0x80) out[n++] = c;
      else if (c < 0x800) { out[n++] = 0xc0 | (c >> 6); out[n++] = 0x80 | (c & 63); }
      else if (c < 0x10000) { out[n++] = 0xe0 | (c >> 12); out[n++] = 0x80 | ((c >> 6) & 63); out[n++] = 0x80 | (c & 63); }
      else { out[n++] = 0xf0 | (c >> 18); out[n++] = 0x80 | ((c >> 12) & 63); out[n++] = 0x80 | ((c >> 6) & 63); out[n++] = 0x80 | (c & 63); }
    }
    return new Uint8ArrayCtor(out.buffer, 0, n).slice();
  }
  function utf8Decode(bytes, fatal) {
    let out = '';
    const chunk = list();
    const flush = function () { if (chunk.length) { out += ReflectApply(StringFromCodePoint, undefined, chunk); chunk.length = 0; } };
    for (let i = 0; i < bytes.length;) {
      const b = bytes[i];
      let cp = -1, need = 0, min = 0;
      if (b < 0x80) { cp = b; need = 0; }
      else if (b >= 0xc2 && b <= 0xdf) { cp = b & 31; need = 1; min = 0x80; }
      else if (b >= 0xe0 && b <= 0xef) { cp = b & 15; need = 2; min = 0x800; }
      else if (b >= 0xf0 && b <= 0xf4) { cp = b & 7; need = 3; min = 0x10000; }
      let j = 1;
      for (; j <= need && i + j < bytes.length; j++) {
        const x = bytes[i + j];
        if ((x & 0xc0) !== 0x80) break;
        cp = (cp << 6) | (x & 63);
      }
      const ok = cp >= 0 && j === need + 1 && cp >= min && cp <= 0x10ffff && !(cp >= 0xd800 && cp <= 0xdfff);
      if (!ok) {
        if (fatal) throw new TypeErrorCtor('The encoded data was not valid for encoding utf-8');
        put(chunk, 0xfffd);
        i += j; // the bytes read so far become one U+FFFD
      } else { put(chunk, cp); i += need + 1; }
      if (chunk.length >= 4096) flush();
    }
    flush();
    return out;
  }
  function bytesOf(input) {
    if (input === undefined) return new Uint8ArrayCtor(0);
    const brand = brandOf(input);
    if (brand === 'ArrayBuffer') return new Uint8ArrayCtor(input);
    if (brand === 'TypedArray' || input instanceof DataViewCtor) return new Uint8ArrayCtor(input.buffer, input.byteOffset, input.byteLength);
    throw new TypeErrorCtor('The "input" argument must be an ArrayBuffer or an ArrayBufferView');
  }
  class TextEncoderImpl {
    get encoding() { return 'utf-8'; }
    encode(input) { return utf8Encode(input === undefined ? '' : input); }
    encodeInto(input, dest) {
      const bytes = utf8Encode(input);
      const n = MathMin(bytes.length, dest.length);
      let end = n;
      while (end > 0 && end < bytes.length && (bytes[end] & 0xc0) === 0x80) end--;
      for (let i = 0; i < end; i++) dest[i] = bytes[i];
      return { read: utf8Decode(new Uint8ArrayCtor(bytes.buffer, 0, end), false).length, written: end };
    }
  }
  class TextDecoderImpl {
    #fatal; #ignoreBOM;
    constructor(label, options) {
      const l = label === undefined ? 'utf-8' : ReflectApply(String.prototype.toLowerCase, StringCtor(label), []);
      if (l !== 'utf-8' && l !== 'utf8' && l !== 'unicode-1-1-utf-8') throw new RangeErrorCtor('The "' + StringCtor(label) + '" encoding is not supported (only utf-8 in this sandbox)');
      this.#fatal = !!(options && options.fatal);
      this.#ignoreBOM = !!(options && options.ignoreBOM);
    }
    get encoding() { return 'utf-8'; }
    get fatal() { return this.#fatal; }
    get ignoreBOM() { return this.#ignoreBOM; }
    decode(input) {
      let bytes = bytesOf(input);
      if (!this.#ignoreBOM && bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) bytes = bytes.subarray(3);
      return utf8Decode(bytes, this.#fatal);
    }
  }
  installGlobal('TextEncoder', TextEncoderImpl);
  installGlobal('TextDecoder', TextDecoderImpl);

  // --- base64 ------------------------------------------------------------------------------------------
  const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  installGlobal('btoa', function btoa(data) {
    if (arguments.length === 0) throw new TypeErrorCtor('The "data" argument must be specified');
    const s = StringCtor(data);
    let out = '';
    for (let i = 0; i < s.length; i += 3) {
      const a = charCodeOf(s, i), b = charCodeOf(s, i + 1), c = charCodeOf(s, i + 2);
      if (a > 255 || b > 255 || c > 255) throw domError('InvalidCharacterError', 'Invalid character: btoa takes a string of bytes (characters up to U+00FF); encode text first, e.g. btoa(String.fromCharCode(...new TextEncoder().encode(text)))');
      const n = (a << 16) | ((b === b ? b : 0) << 8) | (c === c ? c : 0);
      out += B64[(n >> 18) & 63] + B64[(n >> 12) & 63] + (i + 1 < s.length ? B64[(n >> 6) & 63] : '=') + (i + 2 < s.length ? B64[n & 63] : '=');
    }
    return out;
  });
  installGlobal('atob', function atob(data) {
    if (arguments.length === 0) throw new TypeErrorCtor('The "data" argument must be specified');
    let s = '';
    const raw = StringCtor(data);
    for (let i = 0; i < raw.length; i++) { const ch = raw[i]; if (ch !== ' ' && ch !== '\t' && ch !== '\n' && ch !== '\f' && ch !== '\r') s += ch; }
    if (s.length % 4 === 0 && s.length >= 2 && s[s.length - 1] === '=') s = ReflectApply(stringSlice, s, [0, s[s.length - 2] === '=' ? -2 : -1]);
    if (s.length % 4 === 1) throw domError('InvalidCharacterError', 'The string to be decoded is not correctly encoded.');
    let out = '', bits = 0, acc = 0;
    for (let i = 0; i < s.length; i++) {
      const v = ReflectApply(stringIndexOf, B64, [s[i]]);
      if (v < 0) throw domError('InvalidCharacterError', 'The string to be decoded is not correctly encoded.');
      acc = (acc << 6) | v; bits += 6;
      if (bits >= 8) { bits -= 8; out += StringFromCharCode((acc >> bits) & 255); }
    }
    return out;
  });

  // --- structuredClone ---------------------------------------------------------------------------------
  installGlobal('structuredClone', function structuredClone(value) {
    if (arguments.length === 0) throw new TypeErrorCtor('The "value" argument must be specified');
    const memory = new MapCtor();
    function clone(v) {
      const t = typeof v;
      if (t === 'symbol') throw domError('DataCloneError', ReflectApply(symbolToString, v, []) + ' could not be cloned.');
      if (t === 'function') throw domError('DataCloneError', functionText(v) + ' could not be cloned.');
      if (v === null || t !== 'object') return v;
      if (ReflectApply(mapHas, memory, [v])) return ReflectApply(mapGet, memory, [v]);
      const brand = brandOf(v);
      let out;
      if (brand === 'Date') out = new Date(ReflectApply(dateGetTime, v, []));
      else if (brand === 'RegExp') out = new RegExp(v.source, v.flags);
      else if (brand === 'ArrayBuffer') out = ReflectApply(ArrayBuffer.prototype.slice, v, [0]);
      else if (brand === 'TypedArray') { const C = globalObject[ReflectApply(typedArrayTag, v, [])]; out = new C(ReflectApply(ArrayBuffer.prototype.slice, v.buffer, [v.byteOffset, v.byteOffset + v.byteLength])); }
      else if (brand === 'Promise') throw domError('DataCloneError', '#<Promise> could not be cloned.');
      else if (brand === 'Map') {
        out = new MapCtor(); ReflectApply(mapSet, memory, [v, out]);
        const pairs = list();
        ReflectApply(mapForEach, v, [function (val, key) { put(pairs, [key, val]); }]);
        for (let i = 0; i < pairs.length; i++) ReflectApply(mapSet, out, [clone(pairs[i][0]), clone(pairs[i][1])]);
        return out;
      } else if (brand === 'Set') {
        out = new SetCtor(); ReflectApply(mapSet, memory, [v, out]);
        const items = list();
        ReflectApply(setForEach, v, [function (val) { put(items, val); }]);
        for (let i = 0; i < items.length; i++) ReflectApply(setAdd, out, [clone(items[i])]);
        return out;
      } else if (brand === 'Error') {
        const name = StringCtor(v.name);
        const C = name === 'TypeError' || name === 'RangeError' || name === 'SyntaxError' || name === 'ReferenceError' || name === 'EvalError' || name === 'URIError' ? globalObject[name] : ErrorCtor;
        out = new C(StringCtor(v.message));
        ReflectApply(mapSet, memory, [v, out]);
        try { ObjectDefineProperty(out, 'stack', { __proto__: null, value: v.stack, writable: true, configurable: true }); } catch (_) {}
        if (ObjectHasOwn(v, 'cause')) ObjectDefineProperty(out, 'cause', { __proto__: null, value: clone(v.cause), writable: true, configurable: true });
        return out;
      } else if (brand === 'Array') {
        out = new Array(v.length); ReflectApply(mapSet, memory, [v, out]);
        const keys = ObjectKeys(v);
        for (let i = 0; i < keys.length; i++) ObjectDefineProperty(out, keys[i], { __proto__: null, value: clone(v[keys[i]]), writable: true, enumerable: true, configurable: true });
        return out;
      } else {
        const p = ObjectPrototypeToString(v);
        if (p === '[object WeakMap]' || p === '[object WeakSet]' || p === '[object WeakRef]') throw domError('DataCloneError', p.slice(8, -1) + ' could not be cloned.');
        out = {}; ReflectApply(mapSet, memory, [v, out]);
        const keys = ObjectKeys(v);
        for (let i = 0; i < keys.length; i++) ObjectDefineProperty(out, keys[i], { __proto__: null, value: clone(v[keys[i]]), writable: true, enumerable: true, configurable: true });
        return out;
      }
      ReflectApply(mapSet, memory, [v, out]);
      return out;
    }
    return clone(value);
  });
${URL_SOURCE}
  return built;
  }
  function putGlobal(name, value) {
    // A program that froze the global object keeps the accessor: the value is still returned.
    try { defineGlobal(name, value, true); } catch (_) {}
  }
  function lazyGlobals(build, names) {
    let built;
    for (let i = 0; i < names.length; i++) {
      const name = names[i];
      ObjectDefineProperty(globalObject, name, {
        __proto__: null,
        enumerable: false,
        configurable: true,
        get: function () {
          if (built === undefined) built = build();
          const value = built[name];
          putGlobal(name, value);
          return value;
        },
        set: function (value) { putGlobal(name, value); },
      });
    }
  }
  lazyGlobals(buildStandardGlobals, ['TextEncoder', 'TextDecoder', 'btoa', 'atob', 'structuredClone', 'URL', 'URLSearchParams']);
`
