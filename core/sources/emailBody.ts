/**
 * The part of an email body its sender wrote in this message: quoted replies
 * and the signature are cut, so what an earlier message said is not extracted
 * again (it was, when that message arrived) and a signature's name, title and
 * phone number do not become facts.
 */

// "On Mon, 2 Mar 2026 at 09:14, Bob Chen <bob@acme.com> wrote:" (clients wrap it over two lines).
const REPLY_HEADER = /^\s*On\b.{0,300}\bwrote:\s*$/is;
const FORWARD_OR_ORIGINAL = /^\s*-{2,}\s*(?:Original Message|Forwarded message)\s*-{2,}\s*$/i;
// Outlook's quoted header block: "From: …" followed by "Sent:"/"Date:" within the next lines.
const OUTLOOK_FROM = /^\s*From:\s+\S/i;
const OUTLOOK_NEXT = /^\s*(?:Sent|Date|To):\s/i;
const SIGNATURE_DELIMITER = /^--\s?$/;
const SIGN_OFF =
  /^\s*(?:best|best regards|kind regards|warm regards|regards|many thanks|thanks|thank you|thanks again|cheers|sincerely|yours|yours sincerely|all the best|talk soon|br)\s*[,.!]?\s*$/i;
// "Hi Bob," opening the message: a salutation names the reader, it states nothing.
const SALUTATION = /^\s*(?:hi|hello|hey|dear|good (?:morning|afternoon|evening)|morning|hiya|greetings)\b[^.!?]{0,60}[,!:]?\s*$/i;
/** A sign-off only counts near the end: "Thanks!" opening a message is not one. */
const SIGN_OFF_WINDOW = 6;

function startsQuotedBlock(lines: string[], i: number): boolean {
  const line = lines[i];
  if (FORWARD_OR_ORIGINAL.test(line)) return true;
  if (REPLY_HEADER.test(line) || (i + 1 < lines.length && /^\s*On\b/i.test(line) && REPLY_HEADER.test(`${line} ${lines[i + 1]}`))) return true;
  return OUTLOOK_FROM.test(line) && lines.slice(i + 1, i + 4).some((l) => OUTLOOK_NEXT.test(l));
}

export function authoredBody(text: string): string {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const kept: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (startsQuotedBlock(lines, i) || SIGNATURE_DELIMITER.test(lines[i])) break;
    if (/^\s*>/.test(lines[i])) continue;
    kept.push(lines[i]);
  }
  // A sign-off ("Best,", "Thanks,") near the end starts the signature even without "-- ".
  const nonEmpty = kept.map((l, i) => ({ l, i })).filter((x) => x.l.trim() !== '');
  const tail = nonEmpty.slice(-SIGN_OFF_WINDOW);
  const signOff = tail.find((x) => SIGN_OFF.test(x.l));
  const body = signOff ? kept.slice(0, signOff.i) : kept;
  const first = body.findIndex((l) => l.trim() !== '');
  if (first >= 0 && SALUTATION.test(body[first])) body.splice(first, 1);
  return body.join('\n').replace(/\n{3,}/g, '\n\n').trim();
}
