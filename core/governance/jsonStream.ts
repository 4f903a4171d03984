import type { Writable } from 'node:stream';

/**
 * Writes one JSON object to a stream piece by piece (fields, and arrays fed
 * from async sources), waiting for the stream to drain when its buffer is
 * full: a document of any size never sits in memory.
 */
export class JsonObjectStream {
  private fields = 0;

  constructor(private readonly out: Writable) {}

  private async write(text: string): Promise<void> {
    if (this.out.destroyed) throw new Error('the client went away');
    if (!this.out.write(text)) {
      await new Promise<void>((resolve, reject) => {
        const done = (err?: Error) => {
          this.out.off('drain', onDrain);
          this.out.off('close', onClose);
          this.out.off('error', done);
          if (err) reject(err);
          else resolve();
        };
        const onDrain = () => done();
        const onClose = () => done(new Error('the client went away'));
        this.out.once('drain', onDrain);
        this.out.once('close', onClose);
        this.out.once('error', done);
      });
    }
  }

  async open(): Promise<void> {
    await this.write('{');
  }

  private async key(name: string): Promise<void> {
    await this.write(`${this.fields++ ? ',' : ''}\n${JSON.stringify(name)}:`);
  }

  async field(name: string, value: unknown): Promise<void> {
    await this.key(name);
    await this.write(JSON.stringify(value));
  }

  /** An array whose items come from `items`, each written as soon as it arrives. */
  async array(name: string, items: AsyncIterable<unknown>): Promise<number> {
    await this.key(name);
    await this.write('[');
    let n = 0;
    for await (const item of items) await this.write(`${n++ ? ',' : ''}\n${JSON.stringify(item)}`);
    await this.write(']');
    return n;
  }

  async close(): Promise<void> {
    await this.write('\n}\n');
  }
}
