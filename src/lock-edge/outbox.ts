import { prepareStoredFile, readStoredFile, replaceStoredFile } from './stored-file.js';
import { decodeOperationReport, type OperationReport } from '../device-protocol/payloads.js';

/** Reports kept at most; past it the oldest is dropped (a lock cut off for weeks must not fill its disk). */
const MAX_REPORTS = 1_000;

/**
 * What a lock did on its own (protocol 1.3 `operation` reports) and has not yet handed to the
 * broker: kept while the service cannot be reached and sent, in order, once it can. With a file
 * it survives a restart: rewritten (a temporary file renamed over it) on every change, which is
 * cheap at a few reports.
 */
export class OperationOutbox {
  private reports: OperationReport[] = [];

  constructor(private readonly file: string | null = null, private readonly max = MAX_REPORTS) {
    if (file === null) return;
    const text = readStoredFile(file) ?? '';
    for (const line of text.split('\n')) {
      if (line === '') continue;
      const decoded = decodeOperationReport(Buffer.from(line));
      if (decoded.ok) this.reports.push(decoded.value);
    }
    prepareStoredFile(file);
  }

  get size(): number {
    return this.reports.length;
  }

  /** Every report not yet sent, oldest first. */
  pending(): readonly OperationReport[] {
    return this.reports;
  }

  /** Keeps `report`; returns the report dropped to make room, if any. */
  add(report: OperationReport): OperationReport | undefined {
    this.reports.push(report);
    const dropped = this.reports.length > this.max ? this.reports.shift() : undefined;
    this.save();
    return dropped;
  }

  /** The broker took it. */
  sent(id: string): void {
    const before = this.reports.length;
    this.reports = this.reports.filter((report) => report.id !== id);
    if (this.reports.length !== before) this.save();
  }

  private save(): void {
    if (this.file === null) return;
    replaceStoredFile(this.file, this.reports.map((report) => `${JSON.stringify(report)}\n`).join(''));
  }
}
