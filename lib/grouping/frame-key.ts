import type { StackFrame, StackPlatform } from "@/lib/grouping/frames";
import { looksGenerated } from "@/lib/grouping/message-shapes";

/**
 * What a frame contributes to a grouping key: where (its module, else its
 * file's name) and its function, normalized so that the same code gives
 * the same parts on every machine, deploy and build. Never a line or a
 * column number.
 */
export function frameKeyParts(frame: StackFrame, platform: StackPlatform | undefined): [where: string, fn: string] {
  const module = frame.module ? remembered(modulesOf(platform), frame.module, (m) => normalizeModule(m, platform)) : "";
  const where = module || remembered(FILES, frame.abs_path || frame.filename || "", normalizeFile);
  const fn = frame.function ? remembered(functionsOf(platform), frame.function, (f) => normalizeFunction(f, platform)) : "";
  return [where, fn];
}

// A service's stacks name the same few hundred files and functions over and
// over: their normalized forms are kept (bounded: emptied when full).
const FILES = new Map<string, string>();
const FUNCTIONS = new Map<StackPlatform | undefined, Map<string, string>>();
const MODULES = new Map<StackPlatform | undefined, Map<string, string>>();
const MAX_REMEMBERED = 5_000;
const MAX_REMEMBERED_CHARS = 512;

const functionsOf = (platform: StackPlatform | undefined) => perPlatform(FUNCTIONS, platform);
const modulesOf = (platform: StackPlatform | undefined) => perPlatform(MODULES, platform);

function perPlatform(maps: Map<StackPlatform | undefined, Map<string, string>>, platform: StackPlatform | undefined): Map<string, string> {
  let map = maps.get(platform);
  if (map === undefined) maps.set(platform, (map = new Map()));
  return map;
}

function remembered(cache: Map<string, string>, key: string, compute: (key: string) => string): string {
  let value = cache.get(key);
  if (value === undefined) {
    value = compute(key);
    if (key.length <= MAX_REMEMBERED_CHARS) {
      if (cache.size >= MAX_REMEMBERED) cache.clear();
      cache.set(key, value);
    }
  }
  return value;
}

/** Installed-package folders: a library file is named with its package. */
const PACKAGE_ROOT = /[\\/](node_modules|site-packages|dist-packages|gems|vendor)[\\/]/g;

/**
 * A file's path to what identifies it everywhere: no scheme or origin, no
 * query string or fragment, no folders (they vary between machines and
 * deploys: `/home/deploy/releases/20261122/app/cart.rb`), no content hash
 * (`main.3f9a1c2b.js` -> `main.js`), lower case; a dependency's file keeps
 * its package's name (`express/router.js`).
 */
export function normalizeFile(path: string): string {
  if (path === "") return "";
  let p = path;
  const end = p.search(/[?#]/);
  if (end > 0) p = p.slice(0, end);
  // `https://cdn.example.com/`, `file://`, `app:///`, `webpack-internal:///`.
  const scheme = /^[a-z][\w+.-]*:\/\/[^/]*/i.exec(p);
  if (scheme !== null) p = p.slice(scheme[0].length);
  const slash = Math.max(p.lastIndexOf("/"), p.lastIndexOf("\\"));
  const base = stripContentHash(p.slice(slash + 1));
  const pkg = packageOf(p);
  return (pkg === "" ? base : `${pkg}/${base}`).toLowerCase();
}

function packageOf(path: string): string {
  let last: RegExpExecArray | null = null;
  PACKAGE_ROOT.lastIndex = 0;
  for (let m = PACKAGE_ROOT.exec(path); m !== null; m = PACKAGE_ROOT.exec(path)) last = m;
  if (last === null) return "";
  const segments = path.slice(last.index + last[0].length).split(/[\\/]/);
  if (segments.length < 2) return "";
  const root = last[1];
  // `@scope/name`, and Composer's `vendor/name`.
  if ((segments[0]!.startsWith("@") || root === "vendor") && segments.length >= 3) return `${segments[0]}/${segments[1]}`;
  // `rack-3.0.8` -> `rack`; `.pnpm/lodash@4.17.21` is followed by its own node_modules.
  return root === "gems" ? segments[0]!.replace(/-\d[\w.]*$/, "") : segments[0]!;
}

/**
 * Drops the parts of a file name that a bundler generates: content hashes
 * (hex, or Vite's 8 base64url characters) and chunk numbers, whether after
 * a dot (`main.3f9a1c2b.js`, `2.a1b2c3d4.chunk.js`) or a hyphen
 * (`chunk-ABCD1234.js`, `index-BdQq_4o_.js`).
 */
export function stripContentHash(name: string): string {
  if (!/[0-9A-Z_-]/.test(name)) return name;
  const parts = name.split(".");
  if (parts.length < 2) return name;
  const extension = parts.pop()!;
  const kept: string[] = [];
  for (const part of parts) {
    if (isHashPart(part)) continue;
    // `index-BdQq_4o_` (Vite's hash may hold a hyphen), `chunk-ABCD1234`, `page-0a1b2c3d4e5f6a7b`.
    const vite = /^(.+)-([A-Za-z0-9_-]{8})$/.exec(part);
    if (vite !== null && isHashPart(vite[2]!)) {
      kept.push(vite[1]!);
      continue;
    }
    const tail = /^(.+)[-~]([A-Za-z0-9_]{6,})$/.exec(part);
    kept.push(tail !== null && isHashPart(tail[2]!) ? tail[1]! : part);
  }
  return `${kept.length === 0 ? "[hash]" : kept.join(".")}.${extension}`;
}

/** A chunk number, a hex content hash, or Vite's 8 base64url characters. */
function isHashPart(part: string): boolean {
  if (/^\d+$/.test(part)) return true;
  if (/^[0-9a-f]{6,}$/i.test(part)) return /\d/.test(part) && /[a-f]/i.test(part);
  if (!/^[A-Za-z0-9_-]{8}$/.test(part)) return false;
  return /\d/.test(part) || (/[_-]/.test(part) && /[A-Z]/.test(part)) || looksGenerated(part.replace(/[_-]/g, ""));
}

/** Generated parts of class names that change with every build or run. */
const JAVA_GENERATED: [RegExp, string][] = [
  [/\$\$Lambda(?:\$\d+)?(?:\/0x[0-9a-f]+|\/\d+)?/g, "$$$$Lambda"],
  [/\$\$(\w*?CGLIB)\$\$[\w$]*/g, "$$$$$1"],
  [/\$\$_javassist(?:_seam)?_\d+/g, "$$$$_javassist"],
  [/(GeneratedMethodAccessor|GeneratedConstructorAccessor|GeneratedSerializationConstructorAccessor)\d+/g, "$1"],
  [/\$Proxy\d+/g, "$$Proxy"],
  [/\$fn__\d+/g, "$$fn"],
];

export function normalizeModule(module: string, platform: StackPlatform | undefined): string {
  if (platform === "javascript" && (module.includes("/") || module.includes("\\"))) return "";
  let m = module;
  if (platform === "java" || platform === undefined) {
    if (m.includes("$") || m.includes("Generated")) for (const [pattern, replacement] of JAVA_GENERATED) m = m.replace(pattern, replacement);
  } else if (platform === "dotnet") {
    // `Shop.Orders.<>c`, `Shop.Orders.<>c__DisplayClass3_0`, `Shop.Orders.<CreateAsync>d__5`: the class they belong to.
    m = m.replace(/\.<(?:[\w$]*)>(?:c|c__DisplayClass[\d_]+|d__\d+)$/, "").replace(/\.<>c(?:__DisplayClass[\d_]+)?(?=\.)/g, "");
  } else if (platform === "php") {
    if (m.startsWith("class@anonymous")) m = "class@anonymous";
  }
  return m;
}

export function normalizeFunction(fn: string, platform: StackPlatform | undefined): string {
  if (fn === "") return "";
  switch (platform) {
    case "javascript":
      return javascriptFunction(fn);
    case "python":
      return fn.slice(fn.lastIndexOf(".") + 1);
    case "java":
      // `lambda$checkout$0`: the counter moves when a lambda is added above.
      return fn.replace(/^(lambda\$[\w$]*?)\$\d+$/, "$1").replace(/^access\$\d+$/, "access$");
    case "go":
      // Closures are numbered in order (`func1`, `func1.2`), wrappers too.
      return fn.replace(/\.func\d+(?:\.\d+)*/g, ".func").replace(/\.(gowrap|deferwrap)\d+/g, ".$1");
    case "ruby":
      return rubyFunction(fn);
    case "php":
      if (fn.startsWith("{closure")) return "{closure}";
      return fn.replace(/^.*\\\{closure\}$/, "{closure}");
    case "dotnet":
      // `<Checkout>b__0_0`, `<<Main>$>g__Local|0_0`: compiler-generated counters.
      return fn.replace(/>b__[\d_]+$/, ">b__").replace(/\|[\d_]+$/, "");
    default:
      return fn;
  }
}

/**
 * The function's own name: no `async`, `new`, `[as alias]`, getter/setter
 * prefix, and no receiver (`Object.each` and `Module.each` are one function
 * called on different objects; Firefox names it `each`). Anonymous
 * functions (`<anonymous>`, `Object.<anonymous>`, Firefox's `/<`) give "".
 */
function javascriptFunction(fn: string): string {
  let f = fn;
  const alias = f.indexOf(" [as ");
  if (alias > 0) f = f.slice(0, alias);
  f = f.replace(/^(?:async |new |get |set )+/, "");
  if (f.endsWith("/<")) return "";
  const slash = f.lastIndexOf("/");
  if (slash >= 0) f = f.slice(slash + 1);
  f = f.slice(f.lastIndexOf(".") + 1);
  return f === "<anonymous>" || f === "?" || f === "Anonymous function" ? "" : f;
}

/**
 * `Cart#total` (Ruby 3.4) and `total` (earlier) are one method;
 * `block (2 levels) in total` is `block in total`; ERB's generated suffix goes.
 */
function rubyFunction(fn: string): string {
  const block = /^((?:block|rescue|ensure)(?: \(\d+ levels\))? in )(.*)$/.exec(fn);
  const prefix = block !== null ? block[1]!.replace(/ \(\d+ levels\)/, "") : "";
  let name = block !== null ? block[2]! : fn;
  if (!name.startsWith("<")) name = name.slice(Math.max(name.lastIndexOf("#"), name.lastIndexOf(".")) + 1);
  return prefix + name.replace(/__\d{3,}_\d{3,}$/, "");
}
