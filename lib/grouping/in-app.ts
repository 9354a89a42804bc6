import type { StackFrame, StackPlatform } from "@/lib/grouping/frames";

/**
 * Whether a frame is the application's own code ("in app") or a library's,
 * the runtime's or a framework's. A frame that says (Sentry's `in_app`) is
 * taken at its word; otherwise the first rule of NOT_IN_APP_RULES that
 * matches makes it a library frame, and a frame no rule matches is in app.
 */
export type InAppRule = {
  name: string;
  /** The platforms it applies to; "all" for paths that mean the same everywhere. */
  platforms: readonly StackPlatform[] | "all";
  description: string;
  /** A frame it matches. */
  example: StackFrame;
  matches: (path: string, module: string, fn: string) => boolean;
};

const JAVA_LIBRARY_PREFIXES = [
  "java.", "javax.", "jakarta.", "jdk.", "sun.", "com.sun.", "kotlin.", "kotlinx.", "scala.", "groovy.",
  "org.codehaus.groovy.", "clojure.", "org.springframework.", "org.apache.", "org.hibernate.", "org.eclipse.",
  "org.glassfish.", "org.jboss.", "io.netty.", "io.undertow.", "reactor.", "io.reactivex.", "rx.", "akka.",
  "com.fasterxml.", "com.google.", "com.zaxxer.", "org.postgresql.", "com.mysql.", "okhttp3.", "okio.",
  "retrofit2.", "feign.", "io.grpc.", "io.micrometer.", "io.opentelemetry.", "io.sentry.", "org.slf4j.",
  "ch.qos.logback.", "org.junit.", "org.mockito.", "android.", "androidx.", "dalvik.", "com.android.",
];
const DOTNET_LIBRARY_PREFIXES = [
  "System.", "Microsoft.", "Newtonsoft.", "Npgsql.", "Serilog.", "NLog.", "Polly.", "Grpc.", "Sentry.",
];

/** One pattern for a list of prefixes (`a.`, `b.`): a single test per frame. */
function prefixPattern(prefixes: readonly string[]): RegExp {
  return new RegExp(`^(?:${prefixes.map((p) => p.replace(/[.$]/g, "\\$&")).join("|")})`);
}
const JAVA_LIBRARY = prefixPattern(JAVA_LIBRARY_PREFIXES);
const DOTNET_LIBRARY = prefixPattern(DOTNET_LIBRARY_PREFIXES);

/** Go's standard library: a package path whose first element has no dot (`net/http`), except `main`. */
function isGoStandardPackage(module: string): boolean {
  if (module === "" || module === "main" || module.startsWith("main.")) return false;
  const slash = module.indexOf("/");
  const first = slash < 0 ? module : module.slice(0, slash);
  return !first.includes(".");
}

export const NOT_IN_APP_RULES: readonly InAppRule[] = [
  {
    name: "dependency-folder",
    platforms: "all",
    description: "Installed dependencies: node_modules, site-packages, dist-packages, gems, a bundle, Go's module cache, vendor/.",
    example: { abs_path: "/app/node_modules/express/lib/router/index.js", function: "handle" },
    matches: (path) =>
      /[\\/](?:node_modules|site-packages|dist-packages|gems|rubygems|bower_components|jspm_packages)[\\/]|[\\/]pkg[\\/]mod[\\/]|[\\/]vendor[\\/]|^vendor[\\/]/.test(path),
  },
  {
    name: "no-location",
    platforms: "all",
    description: "A frame with neither a file nor a module: native code, `[internal function]`, `Array.map (<anonymous>)`.",
    example: { abs_path: "<anonymous>", function: "Array.map" },
    matches: (path, module) => module === "" && (path === "" || path === "<anonymous>" || path === "native" || path === "[native code]"),
  },
  {
    name: "node-internals",
    platforms: ["javascript"],
    description: "Node.js itself: `node:` modules, `internal/...`, `node -e`'s wrapper, and the bare core file names older versions print (`fs.js`).",
    example: { abs_path: "node:internal/process/task_queues", function: "processTicksAndRejections" },
    matches: (path) =>
      path.startsWith("node:") || path.startsWith("internal/") || path === "[eval]-wrapper" || /^[\w-]+\.js$/.test(path),
  },
  {
    name: "bundler-runtime",
    platforms: ["javascript"],
    description: "The bundler's runtime: webpack's bootstrap and runtime modules, Next.js framework chunks and dist.",
    example: { abs_path: "webpack:///webpack/bootstrap", function: "__webpack_require__" },
    matches: (path, _module, fn) =>
      fn === "__webpack_require__" ||
      /webpack\/(?:bootstrap|runtime)|\(webpack\)|\/_next\/static\/chunks\/(?:webpack|framework|main|main-app|polyfills|react-refresh)[-.]|[\\/]next[\\/]dist[\\/]/.test(path),
  },
  {
    name: "browser-extension",
    platforms: ["javascript"],
    description: "A browser extension's script.",
    example: { abs_path: "chrome-extension://abcdefghijklmnop/content.js", function: "inject" },
    matches: (path) => /^(?:chrome|moz|safari(?:-web)?|ms-browser)-extension:/.test(path),
  },
  {
    name: "python-standard-library",
    platforms: ["python"],
    description: "Python's standard library (`lib/python3.x/`, `Lib\\` on Windows, frozen modules).",
    example: { abs_path: "/usr/lib/python3.11/json/decoder.py", function: "raw_decode" },
    matches: (path) => /[\\/]lib[\\/](?:python|pypy)\d(?:\.\d+)?[\\/]|^[a-z]:\\[^\\]*python[^\\]*\\lib\\|^<frozen /i.test(path),
  },
  {
    name: "java-platform-and-frameworks",
    platforms: ["java"],
    description:
      "Classes of the JDK and the common frameworks and libraries: java., javax., jakarta., jdk., sun., kotlin., scala., org.springframework., org.apache., org.hibernate., io.netty., com.fasterxml. and others.",
    example: { module: "org.springframework.web.servlet.DispatcherServlet", function: "doDispatch" },
    matches: (_path, module) => JAVA_LIBRARY.test(module),
  },
  {
    name: "java-generated-code",
    platforms: ["java"],
    description: "Classes generated at run time: proxies, CGLIB subclasses, reflection accessors, lambdas' classes.",
    example: { module: "com.acme.OrderService$$SpringCGLIB$$0", function: "create" },
    matches: (_path, module) => /\$\$|\$Proxy\d|GeneratedMethodAccessor|\bjdk\.proxy\d/.test(module),
  },
  {
    name: "go-standard-library",
    platforms: ["go"],
    description: "Go's runtime and standard library (a package path without a domain, such as `runtime` or `net/http`; files under GOROOT).",
    example: { module: "net/http", function: "(*conn).serve", abs_path: "/usr/local/go/src/net/http/server.go" },
    matches: (path, module) =>
      isGoStandardPackage(module) || (module === "" && /(?:^|[\\/])go(?:-?\d[\d.]*)?[\\/]src[\\/](?![\w.-]+\.[a-z]{2,}[\\/])/.test(path)) || path.startsWith("$GOROOT"),
  },
  {
    name: "go-module-cache",
    platforms: ["go"],
    description: "A dependency's file with its version in the path (`github.com/lib/pq@v1.10.9/conn.go`).",
    example: { module: "github.com/lib/pq", function: "(*conn).query", abs_path: "github.com/lib/pq@v1.10.9/conn.go" },
    matches: (path) => /@v\d/.test(path),
  },
  {
    name: "ruby-standard-library",
    platforms: ["ruby"],
    description: "Ruby's standard library and internals (`lib/ruby/3.3.0/`, `<internal:kernel>`).",
    example: { abs_path: "/usr/local/lib/ruby/3.3.0/net/http.rb", function: "connect" },
    matches: (path) => /[\\/]lib[\\/]ruby[\\/]\d/.test(path) || path.startsWith("<internal:"),
  },
  {
    name: "dotnet-framework",
    platforms: ["dotnet"],
    description: ".NET's own and common libraries' namespaces: System., Microsoft., Newtonsoft., Npgsql., Serilog., Polly., Grpc.",
    example: { module: "System.Text.Json.ThrowHelper", function: "ThrowJsonException" },
    matches: (_path, module) => DOTNET_LIBRARY.test(module),
  },
];

const RULES_BY_PLATFORM = new Map<StackPlatform | undefined, readonly InAppRule[]>();
function rulesFor(platform: StackPlatform | undefined): readonly InAppRule[] {
  let rules = RULES_BY_PLATFORM.get(platform);
  if (rules === undefined) {
    rules = NOT_IN_APP_RULES.filter((r) => r.platforms === "all" || (platform !== undefined && r.platforms.includes(platform)));
    RULES_BY_PLATFORM.set(platform, rules);
  }
  return rules;
}

/** The first rule that makes the frame a library frame, or undefined when it is in app by the rules. */
export function notInAppRule(frame: StackFrame, platform: StackPlatform | undefined): InAppRule | undefined {
  const path = frame.abs_path || frame.filename || "";
  const module = frame.module ?? "";
  const fn = frame.function ?? "";
  // Decisions by path alone (most frames have no module) are kept: a
  // service's stacks name the same files over and over. Bounded: emptied when full.
  const cache = module === "" && fn !== "__webpack_require__" && path.length <= 512 ? decisionsOf(platform) : undefined;
  const known = cache?.get(path);
  if (known !== undefined) return known === NONE ? undefined : known;
  let found: InAppRule | undefined;
  for (const rule of rulesFor(platform)) {
    if (rule.matches(path, module, fn)) {
      found = rule;
      break;
    }
  }
  if (cache !== undefined) {
    if (cache.size >= 5_000) cache.clear();
    cache.set(path, found ?? NONE);
  }
  return found;
}

const NONE = "in app" as const;
const DECISIONS = new Map<StackPlatform | undefined, Map<string, InAppRule | typeof NONE>>();
function decisionsOf(platform: StackPlatform | undefined): Map<string, InAppRule | typeof NONE> {
  let map = DECISIONS.get(platform);
  if (map === undefined) DECISIONS.set(platform, (map = new Map()));
  return map;
}

/** Sentry's own `in_app` when the frame has it, else the rules. */
export function isInApp(frame: StackFrame, platform: StackPlatform | undefined): boolean {
  if (typeof frame.in_app === "boolean") return frame.in_app;
  return notInAppRule(frame, platform) === undefined;
}

const EXTENSION_PLATFORMS: Record<string, StackPlatform> = {
  js: "javascript", mjs: "javascript", cjs: "javascript", jsx: "javascript", ts: "javascript", tsx: "javascript",
  mts: "javascript", cts: "javascript", vue: "javascript", svelte: "javascript",
  py: "python", pyw: "python",
  java: "java", kt: "java", kts: "java", scala: "java", groovy: "java", clj: "java",
  go: "go",
  rb: "ruby", erb: "ruby", rake: "ruby",
  php: "php", phtml: "php", inc: "php",
  cs: "dotnet", vb: "dotnet", fs: "dotnet",
};

/** Sentry's `platform` names (the event's or a frame's) to ours. */
const SENTRY_PLATFORMS: Record<string, StackPlatform> = {
  javascript: "javascript", node: "javascript",
  python: "python",
  java: "java", kotlin: "java", scala: "java", groovy: "java", clojure: "java", android: "java",
  go: "go",
  ruby: "ruby",
  php: "php",
  csharp: "dotnet", dotnet: "dotnet",
};

export function platformFromSentry(name: unknown): StackPlatform | undefined {
  return typeof name === "string" ? SENTRY_PLATFORMS[name.toLowerCase()] : undefined;
}

/** A frame's platform when the event does not say: by its file's extension. */
export function platformOfFrame(frame: StackFrame): StackPlatform | undefined {
  let path = frame.filename || frame.abs_path || "";
  const end = path.search(/[?#]/);
  if (end >= 0) path = path.slice(0, end);
  const dot = path.lastIndexOf(".");
  if (dot < 0 || dot < path.lastIndexOf("/")) return undefined;
  return EXTENSION_PLATFORMS[path.slice(dot + 1).toLowerCase()];
}
