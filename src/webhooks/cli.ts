import { existsSync, readFileSync } from 'node:fs';
import { verifyWebhookDeliveries, type ReceivedWebhook } from '../client/webhooks.js';
import { UsageError, printer, requirePath, type Command, type CommandIo } from '../command-line/command.js';

function readFileOption(values: Record<string, string | boolean | undefined>, name: string, io: Pick<CommandIo, 'cwd'>): string {
  const file = requirePath(values, name, io);
  if (!existsSync(file)) throw new UsageError(`--${name}: no file ${file}`);
  return readFileSync(file, 'utf8');
}

/** One delivery per line: `{"headers": {...}, "body": "<the raw body>"}` (what docs/webhooks.md's receiver keeps). */
function parseDeliveries(text: string): ReceivedWebhook[] {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line, index) => {
      try {
        const parsed = JSON.parse(line) as ReceivedWebhook;
        if (typeof parsed.body !== 'string' || typeof parsed.headers !== 'object' || parsed.headers === null) throw new Error('shape');
        return parsed;
      } catch {
        throw new UsageError(`--deliveries: line ${index + 1} is not {"headers": {…}, "body": "…"}`);
      }
    });
}

/**
 * `latchkey webhook verify --deliveries FILE --secret-file FILE --key VERIFIER_KEY`: checks every
 * delivery a receiver kept (signature, audit entry, inclusion under a signed checkpoint) and the
 * gaps between them per lock; prints one JSON line per problem and a summary; exit 1 on any.
 */
export const webhookVerifyCommand: Command = {
  path: ['webhook', 'verify'],
  summary: 'Check the webhook deliveries a receiver kept: signatures, audit proofs and gaps; exit 1 naming what is wrong',
  usage: 'webhook verify --deliveries FILE --secret-file FILE --key VERIFIER_KEY [--check-timestamp]',
  options: {
    deliveries: { type: 'string', description: 'the deliveries kept, one JSON object per line: {"headers": {...}, "body": "<raw body>"}' },
    'secret-file': { type: 'string', description: "a file holding the endpoint's secrets (whsec_...), one per line (old and new around a rotation)" },
    key: { type: 'string', description: "the audit log's checkpoint key (signed-note verifier key of GET /audit/checkpoint/key)" },
    'check-timestamp': { type: 'boolean', description: 'also refuse timestamps more than 5 minutes from now (when checking as deliveries arrive)' },
  },
  async run(values, io) {
    const print = printer(io.stdout);
    const deliveries = parseDeliveries(readFileOption(values, 'deliveries', io));
    const secrets = readFileOption(values, 'secret-file', io).split('\n').map((line) => line.trim()).filter(Boolean);
    if (secrets.length === 0) throw new UsageError('--secret-file holds no secret');
    if (typeof values.key !== 'string' || values.key === '') throw new UsageError('--key is required');
    const report = verifyWebhookDeliveries(deliveries, { secrets, verifierKey: values.key, checkTimestamp: values['check-timestamp'] === true });
    for (const delivery of report.deliveries) if (!delivery.ok) print(JSON.stringify({ problem: 'delivery', id: delivery.id, problems: delivery.problems }));
    for (const gap of report.gaps) print(JSON.stringify({ problem: 'gap', ...gap }));
    const entries = new Set(report.deliveries.flatMap((d) => (d.entry ? [d.entry.id] : [])));
    print(JSON.stringify({ ok: report.ok, deliveries: report.deliveries.length, entries: entries.size, gaps: report.gaps.length }));
    return report.ok ? 0 : 1;
  },
};
