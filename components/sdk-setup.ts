/**
 * Copy-paste setup for the official Sentry SDKs, with a project's DSN filled
 * in (the Projects page and the project's settings; docs/sentry.md has the
 * same lines). Each is what that SDK's own documentation gives, minus
 * options Telltale ignores (tracing, replays, profiling).
 */
export type SdkSetup = { id: string; label: string; install: string; code: string; language: string };

export function sdkSetups(dsn: string): SdkSetup[] {
  const q = JSON.stringify(dsn); // the DSN has only URL characters; quoted for every language below
  return [
    {
      id: "node",
      label: "Node.js",
      language: "js",
      install: "npm install @sentry/node",
      code: `// instrument.mjs: load it first, with node --import ./instrument.mjs app.mjs
import * as Sentry from "@sentry/node";

Sentry.init({
  dsn: ${q},
  release: process.env.RELEASE, // optional
  environment: process.env.NODE_ENV, // optional
});`,
    },
    {
      id: "browser",
      label: "Browser JavaScript",
      language: "js",
      install: "npm install @sentry/browser",
      code: `import * as Sentry from "@sentry/browser";

Sentry.init({
  dsn: ${q},
  // release: "shop@1.4.2", environment: "production",
});
// The page's origin must be one this project allows (Team & settings).`,
    },
    {
      id: "python",
      label: "Python",
      language: "python",
      install: "pip install sentry-sdk",
      code: `import sentry_sdk

sentry_sdk.init(
    dsn=${q},
    # release="billing@2.0.1", environment="production",
)`,
    },
    {
      id: "ruby",
      label: "Ruby",
      language: "ruby",
      install: "gem install sentry-ruby",
      code: `require "sentry-ruby"

Sentry.init do |config|
  config.dsn = ${q}
  # config.release = "billing@2.0.1"; config.environment = "production"
end`,
    },
    {
      id: "go",
      label: "Go",
      language: "go",
      install: "go get github.com/getsentry/sentry-go",
      code: `import (
	"log"
	"time"

	"github.com/getsentry/sentry-go"
)

func main() {
	err := sentry.Init(sentry.ClientOptions{
		Dsn: ${q},
	})
	if err != nil {
		log.Fatalf("sentry.Init: %s", err)
	}
	defer sentry.Flush(2 * time.Second)
	// ...
}`,
    },
    {
      id: "java",
      label: "Java",
      language: "java",
      install: `Maven: io.sentry:sentry   (Gradle: implementation "io.sentry:sentry:<latest 8.x>")`,
      code: `import io.sentry.Sentry;

Sentry.init(options -> {
  options.setDsn(${q});
  // options.setRelease("orders@5.2.0"); options.setEnvironment("production");
});`,
    },
    {
      id: "php",
      label: "PHP",
      language: "php",
      install: "composer require sentry/sentry",
      code: `\\Sentry\\init([
    'dsn' => '${dsn}',
    // 'release' => 'shop@1.4.2', 'environment' => 'production',
]);`,
    },
    {
      id: "dotnet",
      label: ".NET",
      language: "csharp",
      install: "dotnet add package Sentry",
      code: `using Sentry;

SentrySdk.Init(options =>
{
    options.Dsn = ${q};
    // options.Release = "orders@5.2.0"; options.Environment = "production";
});`,
    },
  ];
}
