// Empties dist/ before a build, so a file removed from src/ is not published.
import { rmSync } from "node:fs";
rmSync(new URL("../dist", import.meta.url), { recursive: true, force: true });
