/**
 * Letters of other scripts that look like Latin ones, and typographic quotes, each mapped to the ASCII character it
 * passes for ("UNIОN" with a Cyrillic О, "ghр_" with a Cyrillic р). Case is kept: token alphabets are
 * case-sensitive, so an upper-case look-alike becomes an upper-case letter. Only characters outside ASCII are
 * listed: folding never changes ASCII text.
 * NB: a short list of the look-alikes that pass for Latin in ordinary fonts (Unicode's confusables.txt has
 * thousands, most of them only alike in some fonts); a character missing here stays as it is.
 */
const PAIRS: readonly (readonly [string, string])[] = [
  // Cyrillic capitals and small letters
  ['АВЕЅІЈКМНОРСТХУҮԚԜӀ', 'ABESIJKMHOPCTXYYQWI'],
  ['аеѕіјкорсхуүԁԛԝһӏг', 'aesijkopcxyydqwhlr'],
  // Greek capitals and small letters
  ['ΑΒΕΖΗΙΚΜΝΟΡΤΥΧ', 'ABEZHIKMNOPTYX'],
  ['ακιονρυχϲϳ', 'akiovpuxcj'],
  // Armenian
  ['ՕՍօսոհ', 'OUounh'],
  // Latin letters without a decomposition: dotless i and j, script a and g, strokes
  ['ıȷɑɡɩøØđĐłŁħ', 'ijagioOdDlLh'],
  // small capitals (passed as lower-case letters: the keyword detectors read lower-cased text)
  ['ᴀʙᴄᴅᴇꜰɢʜɪᴊᴋʟᴍɴᴏᴘʀꜱᴛᴜᴠᴡʏᴢ', 'abcdefghijklmnoprstuvwyz'],
  // typographic quotes and primes
  ['‘’‚‛′ʹʼˊ', "''''''''"],
  ['“”„‟″', '"""""'],
];

/** Code point → its ASCII look-alike. */
export const CONFUSABLES: ReadonlyMap<number, string> = new Map(
  PAIRS.flatMap(([from, to]) => {
    const f = [...from];
    if (f.length !== to.length) throw new Error(`confusables: ${from} and ${to} differ in length`);
    return f.map((c, i) => [c.codePointAt(0)!, to[i]!] as const);
  }),
);
