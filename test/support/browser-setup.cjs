/**
 * Jest global setup: finds the Chromium the browser tests drive, once, before the test workers start, and
 * hands its path to them in CHROMIUM_PATH. In order: CHROMIUM_PATH when set; the Chromium that the npm
 * package @sparticuz/chromium ships inside its tarball (unpacked to the temporary directory on first use:
 * nothing is downloaded); Debian's /usr/bin/chromium. When none starts, CHROMIUM_UNAVAILABLE says why, and
 * the browser tests fail at once with that message instead of waiting.
 */
const load = (id) => module.require(id);
const { execFileSync } = load('node:child_process');
const { existsSync } = load('node:fs');

function starts(path) {
  try {
    execFileSync(path, ['--headless', '--no-sandbox', '--version'], { stdio: 'pipe', timeout: 30_000 });
    return null;
  } catch (error) {
    return `${path}: ${String(error.stderr || error.message).trim().split('\n')[0]}`;
  }
}

function packagedChromium() {
  // The package is ESM only: asked in a child process, which also unpacks the binary once.
  const script = "import('@sparticuz/chromium').then((m) => m.default.executablePath()).then((path) => process.stdout.write(path))";
  return execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 120_000, cwd: __dirname });
}

module.exports = async function browserSetup() {
  if (process.env.CHROMIUM_PATH) return;
  const problems = [];
  const candidates = [];
  try {
    candidates.push(packagedChromium());
  } catch (error) {
    problems.push(`@sparticuz/chromium: ${String(error.stderr || error.message).trim().split('\n')[0]}`);
  }
  if (existsSync('/usr/bin/chromium')) candidates.push('/usr/bin/chromium');
  for (const path of candidates) {
    const problem = starts(path);
    if (!problem) {
      process.env.CHROMIUM_PATH = path;
      return;
    }
    problems.push(problem);
  }
  process.env.CHROMIUM_UNAVAILABLE = `no Chromium starts here (${problems.join('; ') || 'none found'}). Run \`npm ci\` (it installs @sparticuz/chromium, which ships one), install Debian's chromium, or set CHROMIUM_PATH.`;
};
