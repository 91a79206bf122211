// bench/scoring.ts
import { randomBytes as randomBytes2 } from "node:crypto";
import { availableParallelism } from "node:os";
import { SqlClient as SqlClient32 } from "@effect/sql";
import { PgClient as PgClient3 } from "@effect/sql-pg";
import { Effect as Effect45, Layer as Layer27, Logger, LogLevel, Redacted as Redacted2 } from "effect";

// src/domain/scoring/CpvMatch.ts
var digitsOf = (code) => code.slice(0, 8);
var significantMemo = /* @__PURE__ */ new Map();
var significantDigits = (code) => {
  const cached = significantMemo.get(code);
  if (cached !== void 0) return cached;
  const digits = digitsOf(code).replace(/0+$/, "");
  const significant = digits.length >= 2 ? digits : digitsOf(code).slice(0, 2);
  if (significantMemo.size < 5e4) significantMemo.set(code, significant);
  return significant;
};
var SHARED_DEPTH_SCORE = { 2: 0.3, 3: 0.55, 4: 0.75 };
var DEEPER_SHARED_SCORE = 0.85;
var INSIDE = -1;
var codeSetOf = (codes) => ({
  written: codes,
  digits: codes.map(digitsOf),
  significant: codes.map(significantDigits)
});
var depthOf = (tender, tenderSignificantLength, watched) => {
  if (tender.startsWith(watched)) return INSIDE;
  const limit = Math.min(tenderSignificantLength, watched.length);
  let shared = 0;
  while (shared < limit && tender[shared] === watched[shared]) shared++;
  return shared;
};
var depthScore = (depth) => depth === INSIDE ? 1 : depth < 2 ? 0 : SHARED_DEPTH_SCORE[depth] ?? DEEPER_SHARED_SCORE;
var ADDITIONAL_CODE_FACTOR = 0.9;
var bestCpvMatchOf = (tenderCodes, profile) => {
  let score = 0;
  let cpvType = "none";
  let tenderCode = null;
  let profileCode = null;
  let depth = 0;
  for (let i = 0; i < tenderCodes.written.length; i++) {
    const digits = tenderCodes.digits[i];
    const significantLength = tenderCodes.significant[i].length;
    for (let j = 0; j < profile.written.length; j++) {
      const meeting = depthOf(digits, significantLength, profile.significant[j]);
      const codeScore = i === 0 ? depthScore(meeting) : depthScore(meeting) * ADDITIONAL_CODE_FACTOR;
      if (codeScore > score) {
        score = codeScore;
        cpvType = i === 0 ? "primary" : "additional";
        tenderCode = tenderCodes.written[i];
        profileCode = profile.written[j];
        depth = meeting;
      }
    }
  }
  return { score, cpvType, tenderCode, profileCode, depth };
};
var cpvMatchReaches = (tenderCodes, profile, minimum) => {
  for (let i = 0; i < tenderCodes.written.length; i++) {
    const digits = tenderCodes.digits[i];
    const significantLength = tenderCodes.significant[i].length;
    for (let j = 0; j < profile.written.length; j++) {
      const score = depthScore(depthOf(digits, significantLength, profile.significant[j]));
      if ((i === 0 ? score : score * ADDITIONAL_CODE_FACTOR) >= minimum) return true;
    }
  }
  return false;
};
var meetingNode = (tenderCode, profileCode, depth) => depth === INSIDE ? significantDigits(profileCode) : digitsOf(tenderCode).slice(0, depth);
var CPV_LEVELS = { 2: "division", 3: "group", 4: "class", 5: "category" };
var cpvLevelOf = (significant) => CPV_LEVELS[significant.length] ?? "subcategory";
var withinCode = (tenderCode, watchedCode) => digitsOf(tenderCode).startsWith(significantDigits(watchedCode));
var tenderCpvKeys = (tenderCode) => {
  const digits = digitsOf(tenderCode);
  return [digits.slice(0, 2), digits.slice(0, 3), digits.slice(0, 4)];
};

// src/domain/scoring/ValueFit.ts
var NEUTRAL = 0.5;
var DECAY_LOG_WIDTH = Math.log(2);
var logRatioSimilarity = (ratio, logWidth) => {
  const distance = Math.log(ratio);
  return Math.exp(-(distance * distance) / (2 * logWidth * logWidth));
};
var valuePlacement = (value, min, max) => {
  if (min === null && max === null) return "no-range";
  if (value === null) return "no-value";
  const safeValue = Math.max(value, 1);
  if (min !== null && safeValue < min) return "below";
  if (max !== null && safeValue > max) return "above";
  return "inside";
};
var valueFitScore = (value, min, max, found) => {
  const placement = valuePlacement(value, min, max);
  if (found !== void 0) found.placement = placement;
  if (placement === "below") return logRatioSimilarity(Math.max(min, 1) / Math.max(value, 1), DECAY_LOG_WIDTH);
  if (placement === "above") return logRatioSimilarity(Math.max(value, 1) / Math.max(max, 1), DECAY_LOG_WIDTH);
  return placement === "inside" ? 1 : NEUTRAL;
};

// src/domain/scoring/Historical.ts
var HISTORY_AUTHORITY_WEIGHT = 0.35;
var HISTORY_CPV_WEIGHT = 0.45;
var HISTORY_VALUE_WEIGHT = 0.2;
var HISTORY_PLACE_SHARE = 0.7;
var VALUE_LOG_WIDTH = Math.log(3);
var cpvClassOf = (code) => digitsOf(code).slice(0, 4);
var SAME_CLASS = 1;
var cpvClassSimilarity = (tenderCpv, awardCpv) => {
  const a = digitsOf(tenderCpv);
  const b = digitsOf(awardCpv);
  if (cpvClassOf(a) === cpvClassOf(b)) return SAME_CLASS;
  if (a.slice(0, 3) === b.slice(0, 3)) return 0.6;
  if (a.slice(0, 2) === b.slice(0, 2)) return 0.3;
  return 0;
};
var historicalScore = (tender, history, counts, place = null) => {
  if (history.length === 0) {
    if (place === null) return NEUTRAL;
    return HISTORY_AUTHORITY_WEIGHT * place.proximity + (1 - HISTORY_AUTHORITY_WEIGHT) * NEUTRAL;
  }
  let authority = place === null ? 0 : HISTORY_PLACE_SHARE * place.proximity;
  let cpv = 0;
  let value = tender.valueRon === null ? NEUTRAL : 0;
  let comparedValues = false;
  for (const award of history) {
    if (award.authorityId === tender.authorityId) {
      authority = 1;
      if (counts !== void 0) counts.fromAuthority++;
    }
    const similarity = cpvClassSimilarity(tender.mainCpv, award.mainCpv);
    if (counts !== void 0 && similarity === SAME_CLASS) counts.inClass++;
    cpv = Math.max(cpv, similarity);
    if (tender.valueRon !== null && award.valueRon !== null) {
      comparedValues = true;
      value = Math.max(
        value,
        logRatioSimilarity(Math.max(tender.valueRon, 1) / Math.max(award.valueRon, 1), VALUE_LOG_WIDTH)
      );
    }
  }
  if (!comparedValues) value = NEUTRAL;
  return HISTORY_AUTHORITY_WEIGHT * authority + HISTORY_CPV_WEIGHT * cpv + HISTORY_VALUE_WEIGHT * value;
};

// src/domain/scoring/Feedback.ts
var FEEDBACK_SHIFT_PER_MARK = 0.1;
var FEEDBACK_MAX_SHIFT = 0.3;
var feedbackByClass = (marks) => {
  const byClass = /* @__PURE__ */ new Map();
  for (const mark of marks) {
    const cpvClass = cpvClassOf(mark.mainCpv);
    const counts = byClass.get(cpvClass) ?? { cpvClass, relevant: 0, notRelevant: 0 };
    byClass.set(cpvClass, {
      cpvClass,
      relevant: counts.relevant + (mark.relevant ? 1 : 0),
      notRelevant: counts.notRelevant + (mark.relevant ? 0 : 1)
    });
  }
  return byClass;
};
var feedbackShift = (feedback) => {
  const net = (feedback.relevant - feedback.notRelevant) * FEEDBACK_SHIFT_PER_MARK;
  return Math.max(-FEEDBACK_MAX_SHIFT, Math.min(FEEDBACK_MAX_SHIFT, net));
};
var feedbackFor = (byClass, mainCpv) => byClass.size === 0 ? void 0 : byClass.get(cpvClassOf(mainCpv));

// src/domain/tenders/Counties.ts
var COUNTY_BY_NUTS3 = {
  RO111: "Bihor",
  RO112: "Bistri\u021Ba-N\u0103s\u0103ud",
  RO113: "Cluj",
  RO114: "Maramure\u0219",
  RO115: "Satu Mare",
  RO116: "S\u0103laj",
  RO121: "Alba",
  RO122: "Bra\u0219ov",
  RO123: "Covasna",
  RO124: "Harghita",
  RO125: "Mure\u0219",
  RO126: "Sibiu",
  RO211: "Bac\u0103u",
  RO212: "Boto\u0219ani",
  RO213: "Ia\u0219i",
  RO214: "Neam\u021B",
  RO215: "Suceava",
  RO216: "Vaslui",
  RO221: "Br\u0103ila",
  RO222: "Buz\u0103u",
  RO223: "Constan\u021Ba",
  RO224: "Gala\u021Bi",
  RO225: "Tulcea",
  RO226: "Vrancea",
  RO311: "Arge\u0219",
  RO312: "C\u0103l\u0103ra\u0219i",
  RO313: "D\xE2mbovi\u021Ba",
  RO314: "Giurgiu",
  RO315: "Ialomi\u021Ba",
  RO316: "Prahova",
  RO317: "Teleorman",
  RO321: "Bucure\u0219ti",
  RO322: "Ilfov",
  RO411: "Dolj",
  RO412: "Gorj",
  RO413: "Mehedin\u021Bi",
  RO414: "Olt",
  RO415: "V\xE2lcea",
  RO421: "Arad",
  RO422: "Cara\u0219-Severin",
  RO423: "Hunedoara",
  RO424: "Timi\u0219"
};
var ROMANIAN_COUNTIES = Object.values(COUNTY_BY_NUTS3).sort(
  (a, b) => a.localeCompare(b, "ro")
);

// src/domain/tenders/RomanianText.ts
var CEDILLA_LETTERS = "\u015F\u0163\u015E\u0162";
var COMMA_BELOW_LETTERS = "\u0219\u021B\u0218\u021A";
var commaBelow = (text) => text.normalize("NFC").replace(/[şţŞŢ]/g, (letter) => COMMA_BELOW_LETTERS[CEDILLA_LETTERS.indexOf(letter)]);
var foldForMatching = (text) => text.normalize("NFD").replace(/\p{M}+/gu, "").toLowerCase();

// src/domain/tenders/CountyDistance.ts
var BORDERS = [
  ["Alba", ["Arad", "Bihor", "Cluj", "Hunedoara", "Mure\u0219", "Sibiu", "V\xE2lcea"]],
  ["Arad", ["Bihor", "Hunedoara", "Timi\u0219"]],
  ["Arge\u0219", ["Bra\u0219ov", "D\xE2mbovi\u021Ba", "Olt", "Sibiu", "Teleorman", "V\xE2lcea"]],
  ["Bac\u0103u", ["Covasna", "Harghita", "Neam\u021B", "Vaslui", "Vrancea"]],
  ["Bihor", ["Cluj", "S\u0103laj", "Satu Mare"]],
  ["Bistri\u021Ba-N\u0103s\u0103ud", ["Cluj", "Maramure\u0219", "Mure\u0219", "Suceava"]],
  ["Boto\u0219ani", ["Ia\u0219i", "Suceava"]],
  ["Bra\u0219ov", ["Buz\u0103u", "Covasna", "D\xE2mbovi\u021Ba", "Harghita", "Mure\u0219", "Prahova", "Sibiu"]],
  ["Br\u0103ila", ["Buz\u0103u", "Constan\u021Ba", "Gala\u021Bi", "Ialomi\u021Ba", "Tulcea", "Vrancea"]],
  ["Bucure\u0219ti", ["Ilfov"]],
  ["Buz\u0103u", ["Covasna", "Ialomi\u021Ba", "Prahova", "Vrancea"]],
  ["Cara\u0219-Severin", ["Gorj", "Hunedoara", "Mehedin\u021Bi", "Timi\u0219"]],
  ["C\u0103l\u0103ra\u0219i", ["Constan\u021Ba", "Giurgiu", "Ialomi\u021Ba", "Ilfov"]],
  ["Cluj", ["Maramure\u0219", "Mure\u0219", "S\u0103laj"]],
  ["Constan\u021Ba", ["Ialomi\u021Ba", "Tulcea"]],
  ["Covasna", ["Harghita", "Vrancea"]],
  ["D\xE2mbovi\u021Ba", ["Giurgiu", "Ilfov", "Prahova", "Teleorman"]],
  ["Dolj", ["Gorj", "Mehedin\u021Bi", "Olt", "V\xE2lcea"]],
  ["Gala\u021Bi", ["Tulcea", "Vaslui", "Vrancea"]],
  ["Giurgiu", ["Ilfov", "Teleorman"]],
  ["Gorj", ["Hunedoara", "Mehedin\u021Bi", "V\xE2lcea"]],
  ["Harghita", ["Mure\u0219", "Neam\u021B", "Suceava"]],
  ["Hunedoara", ["Timi\u0219", "V\xE2lcea"]],
  ["Ialomi\u021Ba", ["Ilfov", "Prahova"]],
  ["Ia\u0219i", ["Neam\u021B", "Suceava", "Vaslui"]],
  ["Ilfov", ["Prahova"]],
  ["Maramure\u0219", ["S\u0103laj", "Satu Mare", "Suceava"]],
  ["Mure\u0219", ["Sibiu", "Suceava"]],
  ["Neam\u021B", ["Suceava", "Vaslui"]],
  ["Olt", ["Teleorman", "V\xE2lcea"]],
  ["S\u0103laj", ["Satu Mare"]],
  ["Sibiu", ["V\xE2lcea"]],
  ["Vaslui", ["Vrancea"]]
];
var byFolded = new Map(ROMANIAN_COUNTIES.map((county) => [foldForMatching(county).replace(/[^a-z]/g, ""), county]));
var canonicalCounty = (text) => {
  const folded = foldForMatching(text).replace(/^\s*(judetul|jud\.?|municipiul|mun\.?)\s+/, "").replace(/[^a-z]/g, "");
  return byFolded.get(folded) ?? null;
};
var neighbours = new Map(ROMANIAN_COUNTIES.map((county) => [county, /* @__PURE__ */ new Set()]));
for (const [county, others] of BORDERS) {
  for (const other of others) {
    neighbours.get(county).add(other);
    neighbours.get(other).add(county);
  }
}
var distances = /* @__PURE__ */ new Map();
for (const start of ROMANIAN_COUNTIES) {
  const reached = /* @__PURE__ */ new Map([[start, 0]]);
  let frontier = [start];
  while (frontier.length > 0) {
    const next = [];
    for (const county of frontier) {
      for (const other of neighbours.get(county)) {
        if (reached.has(other)) continue;
        reached.set(other, reached.get(county) + 1);
        next.push(other);
      }
    }
    frontier = next;
  }
  distances.set(start, reached);
}
var countyDistance = (from, to) => distances.get(from)?.get(to) ?? null;

// src/domain/scoring/Place.ts
var INFERRED_MIN_SHARE = 0.2;
var INFERRED_MIN_AWARDS = 3;
var PROXIMITY_BY_DISTANCE = [1, 0.6, 0.3];
var inferCounties = (history) => {
  const counts = /* @__PURE__ */ new Map();
  let known = 0;
  for (const award of history) {
    if (award.county == null) continue;
    known++;
    counts.set(award.county, (counts.get(award.county) ?? 0) + 1);
  }
  return [...counts].filter(([, count]) => count >= INFERRED_MIN_AWARDS || count >= INFERRED_MIN_SHARE * known).sort(([a, x], [b, y]) => y - x || a.localeCompare(b, "ro")).map(([county]) => county);
};
var companyCountiesOf = (company) => company.counties != null && company.counties.length > 0 ? { counties: company.counties, source: "set" } : { counties: inferCounties(company.history), source: "awards" };
var nearestCounty = (tenderCounty, counties) => {
  if (tenderCounty === null) return null;
  let best = null;
  for (const county of counties) {
    const distance = countyDistance(tenderCounty, county);
    if (distance !== null && (best === null || distance < best)) best = distance;
  }
  return best === null ? null : { distance: best, proximity: PROXIMITY_BY_DISTANCE[best] ?? 0 };
};

// src/domain/scoring/Text.ts
var STOP_WORDS = /* @__PURE__ */ new Set([
  "a",
  "ai",
  "al",
  "ale",
  "and",
  "as",
  "au",
  "ca",
  "care",
  "ce",
  "cu",
  "cum",
  "da",
  "de",
  "din",
  "dintre",
  "este",
  "for",
  "fi",
  "in",
  "intre",
  "iar",
  "la",
  "le",
  "lor",
  "mai",
  "nu",
  "o",
  "of",
  "or",
  "pe",
  "pentru",
  "prin",
  "privind",
  "sa",
  "se",
  "si",
  "sau",
  "sub",
  "the",
  "to",
  "un",
  "una",
  "unei",
  "unui",
  "cat",
  "catre",
  "fara",
  "peste",
  "dupa",
  "acest",
  "aceasta",
  "acestei",
  "acestui",
  "conform",
  "cadrul",
  "etc",
  "nr",
  "str",
  "tip"
]);
var MIN_STEM_LENGTH = 5;
var SUFFIXES = [
  "urilor",
  "iilor",
  "iului",
  "ilor",
  "elor",
  "ului",
  "iile",
  "iul",
  "ile",
  "ele",
  "uri",
  "iei",
  "ii",
  "iu",
  "ul",
  "le",
  "ei",
  "ea",
  "ia",
  "a",
  "e",
  "i",
  "u"
];
var REWRITES = [
  ["oarelor", "or"],
  ["oarele", "or"],
  ["oare", "or"]
];
var stem = (word) => {
  if (word.length <= MIN_STEM_LENGTH) return word;
  for (const [suffix, replacement] of REWRITES) {
    if (word.endsWith(suffix) && word.length - suffix.length >= MIN_STEM_LENGTH) {
      return word.slice(0, word.length - suffix.length) + replacement;
    }
  }
  for (const suffix of SUFFIXES) {
    if (word.endsWith(suffix) && word.length - suffix.length >= MIN_STEM_LENGTH) {
      return word.slice(0, word.length - suffix.length);
    }
  }
  return word;
};
var words = (text) => foldForMatching(text).split(/[^a-z0-9]+/).filter((word) => word.length > 0);
var stems = (text) => words(text).filter((word) => !STOP_WORDS.has(word)).map(stem);
var spellingsOf = (text) => {
  const spellings = /* @__PURE__ */ new Map();
  for (const raw of text.toLowerCase().split(/[^\p{L}\p{N}]+/u)) {
    const folded = words(raw);
    if (folded.length !== 1 || STOP_WORDS.has(folded[0])) continue;
    const term = stem(folded[0]);
    if (!spellings.has(term)) spellings.set(term, raw);
  }
  return spellings;
};
var indexKey = (word) => word.slice(0, MIN_STEM_LENGTH);

// src/domain/scoring/Inputs.ts
var prepareTender = (tender) => {
  const titleStems = stems(tender.title);
  const descriptionStems = stems(tender.description);
  const labelStems = stems(tender.cpvLabel ?? "");
  const termFrequencies = /* @__PURE__ */ new Map();
  for (const term of [...titleStems, ...descriptionStems, ...labelStems]) {
    termFrequencies.set(term, (termFrequencies.get(term) ?? 0) + 1);
  }
  const indexKeys = /* @__PURE__ */ new Set();
  for (const word of words(`${tender.title} ${tender.description}`)) indexKeys.add(indexKey(word));
  return {
    tender,
    titleStems,
    descriptionStems,
    termFrequencies,
    length: titleStems.length + descriptionStems.length + labelStems.length,
    indexKeys,
    cpv: codeSetOf([tender.mainCpv, ...tender.additionalCpvs])
  };
};
var profileCodeOriginsOf = (company) => {
  const origins = /* @__PURE__ */ new Map();
  for (const watchlist of company.watchlists)
    for (const code of watchlist.cpvCodes) origins.set(code.slice(0, 8), { written: code, watched: true });
  for (const award of company.history) {
    const digits = award.mainCpv.slice(0, 8);
    if (origins.get(digits)?.watched !== true) origins.set(digits, { written: award.mainCpv, watched: false });
  }
  return origins;
};
var phraseOf = (keyword) => ({ keyword, stems: stems(keyword) });
var prepareCompany = (company) => {
  const watchlists = company.watchlists.map((watchlist) => ({
    watchlist,
    phrases: watchlist.keywords.map(phraseOf).filter((phrase) => phrase.stems.length > 0)
  }));
  const phrasesByText = /* @__PURE__ */ new Map();
  for (const { phrases: phrases2 } of watchlists) {
    for (const phrase of phrases2) phrasesByText.set(phrase.stems.join(" "), phrase);
  }
  const phrases = [...phrasesByText.values()];
  const descriptionTerms = new Set(stems(company.description));
  const keywordTerms = new Set(phrases.flatMap((phrase) => phrase.stems));
  const awardTitleCounts = /* @__PURE__ */ new Map();
  let awardTitles = 0;
  for (const award of company.history) {
    if (award.title === void 0 || award.title.trim().length === 0) continue;
    awardTitles++;
    for (const term of new Set(stems(award.title))) awardTitleCounts.set(term, (awardTitleCounts.get(term) ?? 0) + 1);
  }
  const queryWeights = /* @__PURE__ */ new Map();
  for (const [term, count] of awardTitleCounts) queryWeights.set(term, count / awardTitles);
  for (const term of descriptionTerms) queryWeights.set(term, 1);
  for (const term of keywordTerms) queryWeights.set(term, 1);
  const queryTerms = new Set(queryWeights.keys());
  const textTerms = new Set([...descriptionTerms, ...awardTitleCounts.keys()].filter((term) => !/^[0-9]+$/.test(term)));
  const profileCodeOrigins = profileCodeOriginsOf(company);
  const profileCodes = [...profileCodeOrigins.keys()];
  const mins = company.watchlists.flatMap((w) => w.minValue === null ? [] : [w.minValue]);
  const maxs = company.watchlists.flatMap((w) => w.maxValue === null ? [] : [w.maxValue]);
  return {
    company,
    watchlists,
    phrases,
    queryTerms: [...queryTerms].sort(),
    queryWeights,
    textTerms: [...textTerms].sort(),
    descriptionTerms,
    keywordTerms,
    awardTerms: new Set(awardTitleCounts.keys()),
    profileCodes,
    profileCpv: codeSetOf(profileCodes),
    profileCodeOrigins,
    minValue: mins.length > 0 ? Math.min(...mins) : null,
    maxValue: maxs.length > 0 ? Math.max(...maxs) : null,
    authorityIds: new Set(company.watchlists.flatMap((w) => w.authorityId === null ? [] : [w.authorityId])),
    hasText: queryTerms.size > 0,
    place: companyCountiesOf(company),
    feedback: feedbackByClass(company.feedback ?? [])
  };
};

// src/domain/scoring/CpvAffinity.ts
var AFFINITY_MIN_SUPPORT = 3;
var AFFINITY_SMOOTHING = 1;
var AFFINITY_MAX_SCORE = 0.6;
var AFFINITY_CANDIDATE_STRENGTH = 0.2;
var affinityStrength = ({ common, left, right, suppliers }) => {
  if (common < AFFINITY_MIN_SUPPORT || common >= suppliers) return 0;
  const k = AFFINITY_SMOOTHING;
  const pmi = Math.log(common * (suppliers + k) / ((left + k) * (right + k)));
  const npmi = pmi / -Math.log(common / suppliers);
  return Math.min(1, Math.max(0, npmi));
};
var learnAffinity = (wins) => {
  const classesBySupplier = /* @__PURE__ */ new Map();
  for (const { supplier, cpvClass } of wins) {
    const classes = classesBySupplier.get(supplier) ?? /* @__PURE__ */ new Set();
    classes.add(cpvClass);
    classesBySupplier.set(supplier, classes);
  }
  const suppliersOf = /* @__PURE__ */ new Map();
  const common = /* @__PURE__ */ new Map();
  for (const classes of classesBySupplier.values()) {
    const sorted = [...classes].sort();
    for (let i = 0; i < sorted.length; i++) {
      suppliersOf.set(sorted[i], (suppliersOf.get(sorted[i]) ?? 0) + 1);
      for (let j = i + 1; j < sorted.length; j++) {
        const key = `${sorted[i]} ${sorted[j]}`;
        common.set(key, (common.get(key) ?? 0) + 1);
      }
    }
  }
  const suppliers = classesBySupplier.size;
  const learned = [];
  for (const [key, count] of common) {
    if (count < AFFINITY_MIN_SUPPORT) continue;
    const [a, b] = key.split(" ");
    const left = suppliersOf.get(a);
    const right = suppliersOf.get(b);
    const strength = affinityStrength({ common: count, left, right, suppliers });
    if (strength <= 0) continue;
    const base = { commonSuppliers: count, strength };
    learned.push({ ...base, cpvClass: a, otherClass: b, classSuppliers: left, otherSuppliers: right });
    learned.push({ ...base, cpvClass: b, otherClass: a, classSuppliers: right, otherSuppliers: left });
  }
  return learned.sort((x, y) => x.cpvClass.localeCompare(y.cpvClass) || x.otherClass.localeCompare(y.otherClass));
};
var affinityOf = (revision, affinities) => {
  const byClass = /* @__PURE__ */ new Map();
  for (const affinity of affinities) {
    const others = byClass.get(affinity.cpvClass) ?? /* @__PURE__ */ new Map();
    others.set(affinity.otherClass, affinity);
    byClass.set(affinity.cpvClass, others);
  }
  return { revision, byClass };
};
var NO_AFFINITY = { revision: "none", byClass: /* @__PURE__ */ new Map() };
var reaches = /* @__PURE__ */ new WeakMap();
var NOWHERE = /* @__PURE__ */ new Map();
var affinityReachOf = (company, affinity) => {
  if (affinity.byClass.size === 0) return NOWHERE;
  let byCompany = reaches.get(affinity);
  if (byCompany === void 0) {
    byCompany = /* @__PURE__ */ new WeakMap();
    reaches.set(affinity, byCompany);
  }
  const cached = byCompany.get(company);
  if (cached !== void 0) return cached;
  const reach = /* @__PURE__ */ new Map();
  for (const code of company.profileCodes) {
    const others = affinity.byClass.get(cpvClassOf(code));
    if (others === void 0) continue;
    for (const [otherClass, found] of others) {
      const best = reach.get(otherClass);
      if (best === void 0 || found.strength > best.affinity.strength)
        reach.set(otherClass, { affinity: found, profileCode: digitsOf(code) });
    }
  }
  byCompany.set(company, reach);
  return reach;
};
var ADDITIONAL_AFFINITY_FACTOR = 0.9;
var bestAffinityMatch = (tenderCodes, company, affinity) => {
  const reach = affinityReachOf(company, affinity);
  if (reach.size === 0) return null;
  let best = null;
  for (let i = 0; i < tenderCodes.written.length; i++) {
    const found = reach.get(tenderCodes.digits[i].slice(0, 4));
    if (found === void 0) continue;
    const score = AFFINITY_MAX_SCORE * found.affinity.strength * (i === 0 ? 1 : ADDITIONAL_AFFINITY_FACTOR);
    if (best === null || score > best.score)
      best = { score, main: i === 0, tenderCode: tenderCodes.written[i], reach: found };
  }
  return best;
};

// src/domain/scoring/KeywordMatch.ts
var containsPhrase = (text, phrase) => {
  if (phrase.length === 0 || phrase.length > text.length) return false;
  outer: for (let start = 0; start + phrase.length <= text.length; start++) {
    for (let offset = 0; offset < phrase.length; offset++) {
      if (text[start + offset] !== phrase[offset]) continue outer;
    }
    return true;
  }
  return false;
};
var TITLE_HIT = 1;
var DESCRIPTION_HIT = 0.6;
var KEYWORD_RATE = 0.8;
var mayContain = (phrase, tender) => phrase.stems.every((stem2) => tender.termFrequencies.has(stem2));
var keywordHits = (phrases, tender, found) => {
  let hits = 0;
  for (const phrase of phrases) {
    if (!mayContain(phrase, tender)) continue;
    if (containsPhrase(tender.titleStems, phrase.stems)) {
      hits += TITLE_HIT;
      found?.inTitle.push(phrase.keyword);
    } else if (containsPhrase(tender.descriptionStems, phrase.stems)) {
      hits += DESCRIPTION_HIT;
      found?.inDescription.push(phrase.keyword);
    }
  }
  return hits;
};
var keywordScore = (phrases, tender, found) => 1 - Math.exp(-KEYWORD_RATE * keywordHits(phrases, tender, found));
var matchesAnyPhrase = (phrases, tender) => phrases.some(
  (phrase) => mayContain(phrase, tender) && (containsPhrase(tender.titleStems, phrase.stems) || containsPhrase(tender.descriptionStems, phrase.stems))
);

// src/domain/scoring/Semantic.ts
var emptyCorpusStats = { documentCount: 0, averageLength: 1, documentFrequencies: /* @__PURE__ */ new Map() };
var buildCorpusStats = (documents) => {
  const documentFrequencies = /* @__PURE__ */ new Map();
  let documentCount = 0;
  let totalLength = 0;
  for (const document of documents) {
    documentCount++;
    totalLength += document.length;
    for (const term of document.termFrequencies.keys()) {
      documentFrequencies.set(term, (documentFrequencies.get(term) ?? 0) + 1);
    }
  }
  return {
    documentCount,
    averageLength: documentCount > 0 ? Math.max(1, totalLength / documentCount) : 1,
    documentFrequencies
  };
};
var BM25_K1 = 1.2;
var BM25_B = 0.75;
var SEMANTIC_SCALE = 8;
var inverseDocumentFrequency = (stats, term) => {
  const df = stats.documentFrequencies.get(term) ?? 0;
  return Math.log(1 + (stats.documentCount - df + 0.5) / (df + 0.5));
};
var termContribution = (term, tender, stats) => {
  const tf = tender.termFrequencies.get(term);
  if (tf === void 0) return 0;
  const lengthNorm = 1 - BM25_B + BM25_B * tender.length / stats.averageLength;
  return inverseDocumentFrequency(stats, term) * tf * (BM25_K1 + 1) / (tf + BM25_K1 * lengthNorm);
};
var bm25 = (queryTerms, tender, stats, weights, shared) => {
  let sum = 0;
  for (const term of queryTerms) {
    if (!tender.termFrequencies.has(term)) continue;
    const contribution = (weights?.get(term) ?? 1) * termContribution(term, tender, stats);
    sum += contribution;
    shared?.push({ term, contribution });
  }
  return sum;
};
var semanticScore = (queryTerms, tender, stats, weights, shared) => 1 - Math.exp(-bm25(queryTerms, tender, stats, weights, shared) / SEMANTIC_SCALE);
var SPECIFIC_TERM_MAX_SHARE = 0.3;
var SPECIFIC_TERM_MIN_DOCUMENTS = 20;
var specificDocumentLimit = (stats) => Math.max(SPECIFIC_TERM_MIN_DOCUMENTS, SPECIFIC_TERM_MAX_SHARE * stats.documentCount);
var isSpecific = (stats, term) => (stats.documentFrequencies.get(term) ?? 0) <= specificDocumentLimit(stats);
var specificityMemo = /* @__PURE__ */ new WeakMap();
var specificity = (stats, term) => {
  let memo = specificityMemo.get(stats);
  if (memo === void 0) {
    memo = /* @__PURE__ */ new Map();
    specificityMemo.set(stats, memo);
  }
  const cached = memo.get(term);
  if (cached !== void 0) return cached;
  const maxIdf = Math.log(1 + (stats.documentCount + 0.5) / 0.5);
  const value = maxIdf <= 0 ? 1 : Math.min(1, inverseDocumentFrequency(stats, term) / maxIdf);
  memo.set(term, value);
  return value;
};

// src/domain/scoring/Matching.ts
var CANDIDATE_MIN_CPV = 0.75;
var TEXT_CANDIDATE_FLOOR = 1.2;
var TEXT_CANDIDATE_COVERAGE = 0.25;
var TEXT_ONLY_CANDIDATE_FLOOR = 0.5;
var knownByTextOnly = (company) => company.watchlists.length === 0 && company.company.history.length === 0;
var textProfiles = /* @__PURE__ */ new WeakMap();
var textProfileOf = (company, stats) => {
  let byCompany = textProfiles.get(stats);
  if (byCompany === void 0) {
    byCompany = /* @__PURE__ */ new WeakMap();
    textProfiles.set(stats, byCompany);
  }
  const cached = byCompany.get(company);
  if (cached !== void 0) return cached;
  const terms = [];
  const weights = [];
  let total = 0;
  for (const term of company.textTerms) {
    if (!stats.documentFrequencies.has(term) || !isSpecific(stats, term)) continue;
    const weight = specificity(stats, term);
    terms.push(term);
    weights.push(weight);
    total += weight;
  }
  const profile = { terms, weights, total };
  byCompany.set(company, profile);
  return profile;
};
var textEvidence = (company, tender, stats) => {
  const { terms, weights, total } = textProfileOf(company, stats);
  let shared = 0;
  for (let i = 0; i < terms.length; i++) if (tender.termFrequencies.has(terms[i])) shared += weights[i];
  return { shared, total };
};
var isTextCandidate = (company, tender, stats) => {
  const { shared, total } = textEvidence(company, tender, stats);
  const floor = knownByTextOnly(company) ? TEXT_ONLY_CANDIDATE_FLOOR : TEXT_CANDIDATE_FLOOR;
  return shared > 0 && (shared >= floor || shared >= TEXT_CANDIDATE_COVERAGE * total);
};
var isAffinityCandidate = (company, tender, affinity) => {
  const reach = affinityReachOf(company, affinity);
  if (reach.size === 0) return false;
  return tender.cpv.digits.some(
    (digits) => (reach.get(digits.slice(0, 4))?.affinity.strength ?? 0) >= AFFINITY_CANDIDATE_STRENGTH
  );
};
var isCandidate = (company, tender, stats = emptyCorpusStats, affinity = NO_AFFINITY) => {
  const t = tender.tender;
  if (cpvMatchReaches(tender.cpv, company.profileCpv, CANDIDATE_MIN_CPV)) return true;
  if (company.authorityIds.has(t.authorityId)) return true;
  if (company.company.history.some((award) => award.authorityId === t.authorityId)) return true;
  if (matchesAnyPhrase(company.phrases, tender)) return true;
  if (affinity.byClass.size > 0 && isAffinityCandidate(company, tender, affinity)) return true;
  return company.textTerms.length > 0 && isTextCandidate(company, tender, stats);
};
var passesWatchlist = (watchlist, tender) => {
  const w = watchlist.watchlist;
  const t = tender.tender;
  if (w.cpvCodes.length > 0) {
    const codes = [t.mainCpv, ...t.additionalCpvs];
    if (!codes.some((code) => w.cpvCodes.some((watched) => withinCode(digitsOf(code), watched)))) return false;
  }
  if (watchlist.phrases.length > 0 && !matchesAnyPhrase(watchlist.phrases, tender)) return false;
  if (t.valueRon !== null) {
    if (w.minValue !== null && t.valueRon < w.minValue) return false;
    if (w.maxValue !== null && t.valueRon > w.maxValue) return false;
  }
  if (w.authorityId !== null && w.authorityId !== t.authorityId) return false;
  if (w.counties !== void 0 && w.counties.length > 0 && !w.counties.includes(t.county ?? "")) return false;
  return true;
};
var alertingWatchlists = (company, tender, score) => company.watchlists.filter(
  (watchlist) => score.overallScore >= watchlist.watchlist.minScore && passesWatchlist(watchlist, tender)
);

// src/domain/scoring/Model.ts
var MODEL_VERSION = "tsm-1.4.0";
var WEIGHTS = {
  semantic: 0.25,
  keyword: 0.15,
  cpv: 0.3,
  value_fit: 0.1,
  historical: 0.2
};
var MODEL_WEIGHTS = {
  [MODEL_VERSION]: WEIGHTS,
  // tsm-1.3.0: same weights; its cpv factor knew only the CPV tree, not the classes the same firms win (CpvAffinity.ts).
  "tsm-1.3.0": WEIGHTS,
  // tsm-1.2.0: same weights; its historical factor did not know where the company works (Place.ts).
  "tsm-1.2.0": WEIGHTS,
  // tsm-1.1.0: same weights; a company known by its description alone needed the stricter text floor.
  "tsm-1.1.0": WEIGHTS,
  // tsm-1.0.0: same weights; its semantic query had no award titles and its candidates no text rule.
  "tsm-1.0.0": WEIGHTS
};
var VERDICT_THRESHOLDS = { go: 70, research: 40 };
var CONFIDENCE_PENALTIES = {
  noTenderDescription: 0.15,
  noTenderValue: 0.15,
  noCompanyHistory: 0.2,
  noCompanyText: 0.15
};
var CONFIDENCE_FLOOR = 0.2;
var round = (value, digits) => {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
};
var fraction = (value) => round(Math.min(1, Math.max(0, value)), 4);
var factor = (weights, name, score) => ({
  score,
  weight: weights[name],
  contribution: round(weights[name] * score * 100, 2)
});
var factorBreakdown = (scores, weights = WEIGHTS) => ({
  semantic: factor(weights, "semantic", scores.semantic),
  keyword: factor(weights, "keyword", scores.keyword),
  cpv: { ...factor(weights, "cpv", scores.cpv), cpv_type: scores.cpvType },
  value_fit: factor(weights, "value_fit", scores.value_fit),
  historical: factor(weights, "historical", scores.historical)
});
var verdictOf = (score) => score >= VERDICT_THRESHOLDS.go ? "GO" : score >= VERDICT_THRESHOLDS.research ? "RESEARCH" : "SKIP";
var confidenceOf = (company, tender) => {
  let confidence = 1;
  if (tender.tender.description.trim().length === 0) confidence -= CONFIDENCE_PENALTIES.noTenderDescription;
  if (tender.tender.valueRon === null) confidence -= CONFIDENCE_PENALTIES.noTenderValue;
  if (company.company.history.length === 0) confidence -= CONFIDENCE_PENALTIES.noCompanyHistory;
  if (!company.hasText) confidence -= CONFIDENCE_PENALTIES.noCompanyText;
  return round(Math.max(CONFIDENCE_FLOOR, confidence), 2);
};
var emptyFindings = () => ({
  semantic: [],
  keyword: { inTitle: [], inDescription: [] },
  cpv: null,
  cpvAffinity: null,
  cpvFeedback: null,
  value_fit: { placement: "no-range" },
  historical: { fromAuthority: 0, inClass: 0 },
  place: null
});
var affinityBeyondTree = (company, tender, tree, affinity) => {
  if (affinity.byClass.size === 0 || tree.score >= AFFINITY_MAX_SCORE) return null;
  const reached = bestAffinityMatch(tender.cpv, company, affinity);
  return reached !== null && reached.score > tree.score ? reached : null;
};
var scorePair = (company, tender, corpus, affinity = NO_AFFINITY, found) => {
  const t = tender.tender;
  const tree = bestCpvMatchOf(tender.cpv, company.profileCpv);
  const reached = affinityBeyondTree(company, tender, tree, affinity);
  const cpvScore = reached === null ? tree.score : reached.score;
  const place = nearestCounty(t.county ?? null, company.place.counties);
  const feedback = feedbackFor(company.feedback, t.mainCpv);
  if (found !== void 0) {
    found.cpv = tree;
    found.cpvAffinity = reached;
    found.place = place;
    found.cpvFeedback = feedback ?? null;
  }
  const factors = factorBreakdown({
    semantic: fraction(semanticScore(company.queryTerms, tender, corpus, company.queryWeights, found?.semantic)),
    keyword: fraction(keywordScore(company.phrases, tender, found?.keyword)),
    cpv: fraction(feedback === void 0 ? cpvScore : cpvScore + feedbackShift(feedback)),
    value_fit: fraction(valueFitScore(t.valueRon, company.minValue, company.maxValue, found?.value_fit)),
    historical: fraction(historicalScore(t, company.company.history, found?.historical, place)),
    cpvType: reached === null ? tree.cpvType : reached.main ? "primary" : "additional"
  });
  const sum = factors.semantic.contribution + factors.keyword.contribution + factors.cpv.contribution + factors.value_fit.contribution + factors.historical.contribution;
  const overallScore = Math.min(100, Math.max(0, Math.round(sum)));
  return {
    overallScore,
    overallConfidence: confidenceOf(company, tender),
    verdict: verdictOf(overallScore),
    factors
  };
};

// src/infra/db/Migrator.ts
import * as fs from "node:fs/promises";
import * as path2 from "node:path";
import { SqlClient } from "@effect/sql";
import { Effect, Schema } from "effect";

// src/infra/config/ProjectFiles.ts
import { existsSync } from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
var projectRoot = (() => {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!existsSync(path.join(dir, "package.json")) && path.dirname(dir) !== dir) dir = path.dirname(dir);
  return dir;
})();
var projectFile = (relative) => path.join(projectRoot, relative);

// src/infra/db/Migrator.ts
var MIGRATIONS_DIR = projectFile("migrations");
var MIGRATION_LOCK = 7246813;
var AppliedRow = Schema.Struct({ name: Schema.String });
var decodeApplied = Schema.decodeUnknown(Schema.Array(AppliedRow));
var applyMigrations = (loadReferenceData) => Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient;
  const files = (yield* Effect.promise(() => fs.readdir(MIGRATIONS_DIR))).filter((f) => f.endsWith(".sql")).sort();
  return yield* sql.withTransaction(
    Effect.gen(function* () {
      yield* sql`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`;
      yield* sql`CREATE TABLE IF NOT EXISTS schema_migrations (
        name text PRIMARY KEY,
        applied_at timestamptz NOT NULL DEFAULT now()
      )`;
      const recorded = yield* sql`SELECT name FROM schema_migrations`.pipe(
        Effect.flatMap((rows) => Effect.orDie(decodeApplied(rows)))
      );
      const done = new Set(recorded.map((r) => r.name));
      const applied = [];
      for (const file of files) {
        if (done.has(file)) continue;
        const text = yield* Effect.promise(() => fs.readFile(path2.join(MIGRATIONS_DIR, file), "utf8"));
        yield* sql.unsafe(text);
        yield* sql`INSERT INTO schema_migrations (name) VALUES (${file})`;
        applied.push(file);
      }
      yield* loadReferenceData;
      return applied;
    })
  );
});

// src/infra/tenders/CpvTable.ts
import * as fs2 from "node:fs/promises";
import { SqlClient as SqlClient2 } from "@effect/sql";
import { parse } from "csv-parse/sync";
import { Effect as Effect2, Schema as Schema2 } from "effect";
var CPV_CSV = projectFile("data/cpv/cpv2008_ro_en.csv");
var CpvLabelRow = Schema2.Struct({
  code_full: Schema2.String,
  level: Schema2.String,
  nature: Schema2.String,
  label_ro: Schema2.String
});
var readCpvTable = Effect2.flatMap(
  SqlClient2.SqlClient,
  (sql) => sql`SELECT code_full, level, nature, label_ro FROM cpv_codes ORDER BY code`.pipe(
    Effect2.flatMap((rows) => Effect2.orDie(Schema2.decodeUnknown(Schema2.Array(CpvLabelRow))(rows)))
  )
);
var CountRow = Schema2.Tuple(Schema2.Struct({ count: Schema2.Number }));
var loadCpvCodes = Effect2.gen(function* () {
  const sql = yield* SqlClient2.SqlClient;
  const [{ count }] = yield* sql`SELECT count(*)::int AS count FROM cpv_codes`.pipe(
    Effect2.flatMap((rows2) => Effect2.orDie(Schema2.decodeUnknown(CountRow)(rows2)))
  );
  if (count > 0) return 0;
  const text = yield* Effect2.promise(() => fs2.readFile(CPV_CSV, "utf8"));
  const rows = parse(text, { columns: true, skip_empty_lines: true });
  const column = (key) => rows.map((row) => row[key]);
  const label = (key) => rows.map((row) => commaBelow(row[key]));
  yield* sql`
    INSERT INTO cpv_codes (code, code_full, level, nature, label_ro, label_en)
    SELECT * FROM unnest(
      ${column("code")}::text[], ${column("code_full")}::text[], ${column("level")}::text[],
      ${column("nature")}::text[], ${label("label_ro")}::text[], ${label("label_en")}::text[]
    )`;
  return rows.length;
});

// src/infra/DatabaseSetup.ts
var migrate = applyMigrations(loadCpvCodes);

// src/infra/Repositories.ts
import { Effect as Effect43, Layer as Layer26 } from "effect";

// src/infra/accounts/CompaniesRepo.ts
import { SqlClient as SqlClient4, SqlSchema as SqlSchema2 } from "@effect/sql";
import { Context as Context2, Effect as Effect9, Layer as Layer3, Schema as Schema6 } from "effect";

// src/domain/Errors.ts
import { Data } from "effect";
var TenantNotFound = class extends Data.TaggedError("TenantNotFound") {
};
var ApiKeyLimitExceeded = class extends Data.TaggedError("ApiKeyLimitExceeded") {
};
var ApiKeyNotFound = class extends Data.TaggedError("ApiKeyNotFound") {
};
var InsufficientCredits = class extends Data.TaggedError("InsufficientCredits") {
};
var EmailTaken = class extends Data.TaggedError("EmailTaken") {
};
var WatchlistInvalid = class extends Data.TaggedError("WatchlistInvalid") {
};
var WatchlistLimitReached = class extends Data.TaggedError("WatchlistLimitReached") {
};
var WatchlistNotFound = class extends Data.TaggedError("WatchlistNotFound") {
};
var AlertNotFound = class extends Data.TaggedError("AlertNotFound") {
};
var CompanyNotFound = class extends Data.TaggedError("CompanyNotFound") {
};
var RefreshRejected = class extends Data.TaggedError("RefreshRejected") {
};
var AccessTokenRejected = class extends Data.TaggedError("AccessTokenRejected") {
};
var RateLimitHit = class extends Data.TaggedError("RateLimitHit") {
};
var WebhookLimitExceeded = class extends Data.TaggedError("WebhookLimitExceeded") {
};
var WebhookNotFound = class extends Data.TaggedError("WebhookNotFound") {
};
var DeliveryNotFound = class extends Data.TaggedError("DeliveryNotFound") {
};
var DeliveryNotRetryable = class extends Data.TaggedError("DeliveryNotRetryable") {
};
var FeedbackTargetNotFound = class extends Data.TaggedError("FeedbackTargetNotFound") {
};

// src/infra/queue/JobQueue.ts
import { SqlClient as SqlClient3, SqlSchema } from "@effect/sql";
import { PgClient } from "@effect/sql-pg";
import { Context, Duration as Duration4, Effect as Effect8, Layer as Layer2, Option as Option3, Schema as Schema3, Stream as Stream2 } from "effect";

// src/domain/Retries.ts
import { Duration, Effect as Effect3, Option, Schedule, ScheduleDecision, ScheduleIntervals } from "effect";
var delayAfterFailure = (schedule, failures) => Effect3.gen(function* () {
  let state = schedule.initial;
  let now2 = 0;
  let delay = Option.none();
  for (let failure = 1; failure <= failures; failure++) {
    const [next, , decision] = yield* schedule.step(now2, void 0, state);
    if (ScheduleDecision.isDone(decision)) return Option.none();
    const start = ScheduleIntervals.start(decision.intervals);
    delay = Option.some(Duration.millis(start - now2));
    now2 = start;
    state = next;
  }
  return delay;
});
var JobRetrySchedule = Schedule.exponential("2 seconds", 2).pipe(
  Schedule.modifyDelay((_, delay) => Duration.min(delay, Duration.minutes(5)))
);
var MailRetrySchedule = Schedule.exponential(
  "1 minute",
  3
).pipe(Schedule.intersect(Schedule.recurs(4)));

// src/infra/db/ClockNow.ts
import { Clock, Effect as Effect4 } from "effect";
var clockNow = Effect4.map(Clock.currentTimeMillis, (millis) => new Date(millis));

// src/infra/observability/RequestTrail.ts
import { Effect as Effect5, FiberRef } from "effect";
var currentRequest = FiberRef.unsafeMake(void 0);
var currentRequestId = Effect5.map(
  FiberRef.get(currentRequest),
  (facts) => facts?.requestId
);

// src/infra/observability/Tracing.ts
import * as OtlpSerialization from "@effect/opentelemetry/OtlpSerialization";
import * as OtlpTracer from "@effect/opentelemetry/OtlpTracer";
import { FetchHttpClient, Headers, HttpTraceContext } from "@effect/platform";
import { Config, Duration as Duration2, Effect as Effect6, FiberRef as FiberRef2, Layer, Option as Option2 } from "effect";
var tracingEndpoint = Config.string("OTEL_EXPORTER_OTLP_ENDPOINT").pipe(
  Config.withDefault(""),
  Config.map((value) => value.trim() === "" ? Option2.none() : Option2.some(value.trim().replace(/\/+$/, "")))
);
var tracingOn = FiberRef2.unsafeMake(false);
var currentTraceparent = Effect6.flatMap(
  FiberRef2.get(tracingOn),
  (on) => on ? Effect6.map(
    Effect6.option(Effect6.currentParentSpan),
    (span) => span._tag === "Some" && span.value._tag === "Span" && span.value.sampled ? HttpTraceContext.toHeaders(span.value).traceparent : void 0
  ) : Effect6.succeed(void 0)
);

// src/infra/queue/Wakeups.ts
import { Duration as Duration3, Effect as Effect7, PubSub, Schedule as Schedule2, Stream } from "effect";
var makeWakeups = (pg2, channel, scope) => Effect7.gen(function* () {
  const hub = yield* PubSub.sliding(1024);
  const listen = yield* Effect7.once(
    pg2.listen(channel).pipe(
      Stream.retry(Schedule2.spaced(Duration3.seconds(1))),
      Stream.runForEach((payload) => PubSub.publish(hub, payload)),
      Effect7.catchAllCause(Effect7.logError),
      Effect7.forkIn(scope)
    )
  );
  return Stream.unwrapScoped(Effect7.zipRight(listen, Effect7.map(PubSub.subscribe(hub), Stream.fromQueue)));
});

// src/infra/queue/JobQueue.ts
var JOBS_CHANNEL = "jobs";
var DONE_KEPT = Duration4.days(1);
var SCAN_FACTOR = 4;
var JobQueue = class extends Context.Tag("JobQueue")() {
};
var ClaimedRow = Schema3.Struct({
  id: Schema3.String,
  kind: Schema3.String,
  payload: Schema3.Unknown,
  attempts: Schema3.Number,
  max_attempts: Schema3.Number,
  group_key: Schema3.NullOr(Schema3.String),
  last_error: Schema3.NullOr(Schema3.String),
  request_id: Schema3.NullOr(Schema3.String),
  traceparent: Schema3.NullOr(Schema3.String),
  /** What the claim's `start` returned for this job (null when it started nothing). */
  started: Schema3.Unknown,
  /** How many candidates the claim scanned (the same on every row). */
  scanned: Schema3.Number
});
var decodeClaimed = Schema3.decodeUnknown(Schema3.Array(ClaimedRow));
var IdRow = Schema3.Struct({ id: Schema3.String });
var NextDueRow = Schema3.Struct({ at: Schema3.NullOr(Schema3.DateFromSelf) });
var trail = Effect8.map(Effect8.all([currentRequestId, currentTraceparent]), ([requestId, traceparent]) => ({
  requestId: requestId ?? null,
  traceparent: traceparent ?? null
}));
var after = (now2, duration) => new Date(now2.getTime() + Duration4.toMillis(duration));
var JobQueueLive = Layer2.scoped(
  JobQueue,
  Effect8.gen(function* () {
    const sql = yield* SqlClient3.SqlClient;
    const pg2 = yield* PgClient.PgClient;
    const notifications = yield* makeWakeups(pg2, JOBS_CHANNEL, yield* Effect8.scope);
    const encode = (kind, payload) => Schema3.encode(kind.payload)(payload).pipe(Effect8.map((encoded) => JSON.stringify(encoded)));
    const startsNothing = sql`SELECT NULL::bigint AS job_id, NULL::json AS started WHERE false`;
    const claim = ({ kinds, workerId, limit, lease, perGroup, inFlight = /* @__PURE__ */ new Map(), start }) => Effect8.gen(function* () {
      if (limit <= 0) return { jobs: [], started: /* @__PURE__ */ new Map(), more: false };
      const now2 = yield* clockNow;
      const bound = perGroup ?? limit;
      const full = [...inFlight].filter(([, n]) => n >= bound).map(([key]) => key);
      const busy = [...inFlight].filter(([, n]) => n > 0 && n < bound);
      const scan = limit * SCAN_FACTOR;
      const rows = yield* sql`
          WITH candidates AS (
            SELECT c.id, c.group_key, c.run_at FROM unnest(${kinds}::text[]) AS k(kind)
            CROSS JOIN LATERAL (
              SELECT id, group_key, run_at FROM jobs
              WHERE status = 'queued' AND kind = k.kind AND run_at <= ${now2}
                AND (group_key IS NULL OR NOT (group_key = ANY(${full}::text[])))
              ORDER BY run_at, id
              LIMIT ${scan}) c
            ORDER BY c.run_at, c.id
            LIMIT ${scan}
          ), ranked AS (
            SELECT c.id FROM (
              SELECT id, group_key, run_at,
                     row_number() OVER (PARTITION BY group_key ORDER BY run_at, id) AS rank
              FROM candidates) c
            LEFT JOIN unnest(${busy.map(([key]) => key)}::text[], ${busy.map(([, n]) => n)}::int[]) AS f(group_key, n)
              ON f.group_key = c.group_key
            WHERE c.group_key IS NULL OR c.rank <= ${bound} - coalesce(f.n, 0)
            ORDER BY c.run_at, c.id
            LIMIT ${limit}
          ), chosen AS (
            SELECT id FROM jobs WHERE id IN (SELECT id FROM ranked) AND status = 'queued'
            FOR UPDATE SKIP LOCKED
          ), claimed AS (
            UPDATE jobs j SET status = 'running', attempts = attempts + 1, locked_by = ${workerId},
                   lease_until = ${after(now2, lease)}, updated_at = ${now2}
            FROM chosen WHERE j.id = chosen.id
            RETURNING j.id, j.kind, j.payload, j.attempts, j.max_attempts, j.group_key, j.last_error,
                      j.request_id, j.traceparent
          ), started AS (${start ?? startsNothing})
          SELECT c.id::text, c.kind, c.payload, c.attempts, c.max_attempts, c.group_key, c.last_error,
                 c.request_id, c.traceparent, s.started,
                 (SELECT count(*)::int FROM candidates) AS scanned
          FROM claimed c LEFT JOIN started s ON s.job_id = c.id`.pipe(Effect8.flatMap(decodeClaimed));
      const jobs = rows.map(
        (r) => ({
          id: r.id,
          kind: r.kind,
          payload: r.payload,
          attempts: r.attempts,
          maxAttempts: r.max_attempts,
          groupKey: r.group_key,
          lastError: r.last_error,
          workerId,
          requestId: r.request_id,
          traceparent: r.traceparent
        })
      );
      const started = new Map(rows.flatMap((r) => r.started === null ? [] : [[r.id, r.started]]));
      return { jobs, started, more: rows.length > 0 && rows[0].scanned >= scan };
    }).pipe(Effect8.orDie);
    const settlement = (job, outcome) => Effect8.map(clockNow, (now2) => {
      if (outcome._tag === "done" && outcome.keep === false) {
        return sql`
            DELETE FROM jobs WHERE id = ${job.id} AND status = 'running' AND locked_by = ${job.workerId}
            RETURNING id::text`;
      }
      const status = outcome._tag === "done" ? "done" : outcome._tag === "retry" ? "queued" : "dead";
      const runAt = outcome._tag === "retry" ? outcome.at : now2;
      const error = outcome._tag === "done" ? null : outcome.error;
      return sql`
          UPDATE jobs SET status = ${status}, run_at = ${runAt}, last_error = coalesce(${error}, last_error),
                 locked_by = NULL, lease_until = NULL, updated_at = ${now2}
          WHERE id = ${job.id} AND status = 'running' AND locked_by = ${job.workerId}
          RETURNING id::text`;
    });
    const settle = (job, outcome) => Effect8.flatten(settlement(job, outcome)).pipe(
      Effect8.map((rows) => rows.length > 0),
      Effect8.orDie
    );
    const insertJob = SqlSchema.single({
      Request: Schema3.Struct({
        kind: Schema3.String,
        /** The payload's JSON text. */
        payload: Schema3.String,
        groupKey: Schema3.NullOr(Schema3.String),
        runAt: Schema3.DateFromSelf,
        maxAttempts: Schema3.Number,
        now: Schema3.DateFromSelf,
        requestId: Schema3.NullOr(Schema3.String),
        traceparent: Schema3.NullOr(Schema3.String)
      }),
      Result: IdRow,
      execute: (job) => sql`
        INSERT INTO jobs (kind, payload, group_key, run_at, max_attempts, created_at, updated_at, request_id, traceparent)
        VALUES (${job.kind}, ${job.payload}::jsonb, ${job.groupKey},
                ${job.runAt}, ${job.maxAttempts}, ${job.now}, ${job.now}, ${job.requestId}, ${job.traceparent})
        RETURNING id::text`
    });
    const nextDue = SqlSchema.single({
      Request: Schema3.Array(Schema3.String),
      Result: NextDueRow,
      execute: (kinds) => sql`
        SELECT min(m) AS at FROM unnest(${kinds}::text[]) AS k(kind)
        CROSS JOIN LATERAL (SELECT min(run_at) AS m FROM jobs WHERE status = 'queued' AND kind = k.kind) due`
    });
    return {
      enqueue: (kind, payload, options) => Effect8.gen(function* () {
        const now2 = yield* clockNow;
        const row = yield* insertJob({
          kind: kind.name,
          payload: yield* encode(kind, payload),
          groupKey: options?.groupKey ?? null,
          runAt: after(now2, options?.delay ?? 0),
          maxAttempts: kind.maxAttempts,
          now: now2,
          ...yield* trail
        });
        yield* sql`SELECT pg_notify(${JOBS_CHANNEL}, ${kind.name})`;
        return row.id;
      }).pipe(Effect8.orDie),
      enqueueAll: (kind, jobs) => Effect8.gen(function* () {
        if (jobs.length === 0) return 0;
        const now2 = yield* clockNow;
        const payloads = yield* Effect8.forEach(jobs, (job) => encode(kind, job.payload));
        const { requestId, traceparent } = yield* trail;
        const rows = yield* sql`
            INSERT INTO jobs (kind, payload, group_key, run_at, max_attempts, created_at, updated_at, request_id, traceparent)
            SELECT ${kind.name}, p::jsonb, g, ${now2}, ${kind.maxAttempts}, ${now2}, ${now2}, ${requestId}, ${traceparent}
            FROM unnest(${payloads}::text[], ${jobs.map((job) => job.groupKey ?? null)}::text[]) AS j(p, g)
            RETURNING 1`;
        yield* sql`SELECT pg_notify(${JOBS_CHANNEL}, ${kind.name})`;
        return rows.length;
      }).pipe(Effect8.orDie),
      settleQueued: (kind, payloads) => Effect8.gen(function* () {
        if (payloads.length === 0) return 0;
        const now2 = yield* clockNow;
        const encoded = yield* Effect8.forEach(payloads, (payload) => encode(kind, payload));
        const rows = yield* sql`
            UPDATE jobs SET status = 'done', updated_at = ${now2}
            WHERE status = 'queued' AND kind = ${kind.name} AND payload = ANY(${encoded}::text[]::jsonb[])
            RETURNING 1`;
        return rows.length;
      }).pipe(Effect8.orDie),
      claim,
      extend: (jobs, lease) => jobs.length === 0 ? Effect8.void : Effect8.flatMap(
        clockNow,
        (now2) => sql`
                UPDATE jobs j SET lease_until = ${after(now2, lease)}
                FROM unnest(${jobs.map((job) => job.id)}::bigint[], ${jobs.map((job) => job.workerId)}::text[])
                  AS held(id, worker_id)
                WHERE j.id = held.id AND j.status = 'running' AND j.locked_by = held.worker_id`
      ).pipe(Effect8.asVoid, Effect8.orDie),
      settlement,
      settle,
      complete: (job) => settle(job, { _tag: "done" }),
      failureOf: (kind, job, error) => Effect8.gen(function* () {
        const retryIn = job.attempts >= kind.maxAttempts ? Option3.none() : yield* delayAfterFailure(kind.retry, job.attempts);
        const now2 = yield* clockNow;
        return Option3.match(retryIn, {
          onNone: () => ({ _tag: "dead", error }),
          onSome: (delay) => ({ _tag: "retry", at: after(now2, delay), error })
        });
      }),
      reap: Effect8.gen(function* () {
        const now2 = yield* clockNow;
        const reaped = yield* sql`
          UPDATE jobs SET status = 'queued', locked_by = NULL, lease_until = NULL, updated_at = ${now2},
                 last_error = 'lease expired: the worker stopped during the attempt'
          WHERE status = 'running' AND lease_until < ${now2}
          RETURNING 1`;
        yield* sql`DELETE FROM jobs WHERE status = 'done' AND updated_at < ${new Date(now2.getTime() - Duration4.toMillis(DONE_KEPT))}`;
        return reaped.length;
      }).pipe(Effect8.orDie),
      nextDueAt: (kinds) => nextDue(kinds).pipe(
        Effect8.map((row) => Option3.map(Option3.fromNullable(row.at), (at) => at.getTime())),
        Effect8.orDie
      ),
      wakeups: (kinds) => notifications.pipe(
        Stream2.filter((kind) => kinds.includes(kind)),
        Stream2.as(void 0)
      )
    };
  })
);

// src/infra/scoring/ScoringJobKinds.ts
import { Schema as Schema5 } from "effect";

// src/infra/queue/JobKind.ts
import { Schema as Schema4 } from "effect";
var jobKind = (name, payload, options = {}) => ({
  name,
  payload,
  maxAttempts: options.maxAttempts ?? 5,
  retry: options.retry ?? JobRetrySchedule
});

// src/infra/scoring/ScoringJobKinds.ts
var ScoreTenders = jobKind(
  "tenders.score",
  Schema5.Struct({
    tenderIds: Schema5.Array(Schema5.String),
    isNew: Schema5.optionalWith(Schema5.Array(Schema5.String), { default: () => [] }),
    changed: Schema5.optional(Schema5.Array(Schema5.String))
  })
);
var RescoreCompany = jobKind("company.rescore", Schema5.Struct({ companyId: Schema5.String }));
var BackfillScores = jobKind("scores.backfill", Schema5.Struct({}));

// src/infra/accounts/CompaniesRepo.ts
var CompanyRow = Schema6.Struct({
  id: Schema6.String,
  tenant_id: Schema6.String,
  name: Schema6.String,
  description: Schema6.String,
  fiscal_code: Schema6.NullOr(Schema6.String),
  counties: Schema6.NullOr(Schema6.Array(Schema6.String)),
  active: Schema6.Boolean,
  created_at: Schema6.DateFromSelf
});
var toCompany = (row) => ({
  id: row.id,
  tenantId: row.tenant_id,
  name: row.name,
  description: row.description,
  fiscalCode: row.fiscal_code,
  counties: row.counties ?? [],
  active: row.active,
  createdAt: row.created_at
});
var CompaniesRepo = class extends Context2.Tag("CompaniesRepo")() {
};
var CompaniesRepoLive = Layer3.effect(
  CompaniesRepo,
  Effect9.gen(function* () {
    const sql = yield* SqlClient4.SqlClient;
    const jobs = yield* JobQueue;
    const insertCompany = SqlSchema2.findAll({
      Request: Schema6.Struct({
        tenantId: Schema6.String,
        name: Schema6.String,
        description: Schema6.String,
        fiscalCode: Schema6.NullOr(Schema6.String)
      }),
      Result: CompanyRow,
      execute: (input) => sql`
        INSERT INTO companies (tenant_id, name, description, fiscal_code)
        VALUES (${input.tenantId}, ${input.name}, ${input.description}, ${input.fiscalCode})
        RETURNING id, tenant_id, name, description, fiscal_code, counties, active, created_at`
    });
    const lockCompany = SqlSchema2.findAll({
      Request: Schema6.String,
      Result: CompanyRow,
      execute: (id) => sql`
        SELECT id, tenant_id, name, description, fiscal_code, counties, active, created_at
        FROM companies WHERE id = ${id} FOR UPDATE`
    });
    const updateCompany = SqlSchema2.findAll({
      Request: Schema6.Struct({
        id: Schema6.String,
        name: Schema6.String,
        description: Schema6.String,
        fiscalCode: Schema6.NullOr(Schema6.String),
        counties: Schema6.NullOr(Schema6.Array(Schema6.String))
      }),
      Result: CompanyRow,
      execute: (input) => sql`
        UPDATE companies SET name = ${input.name}, description = ${input.description},
                             fiscal_code = ${input.fiscalCode}, counties = ${input.counties}::text[],
                             updated_at = now()
        WHERE id = ${input.id}
        RETURNING id, tenant_id, name, description, fiscal_code, counties, active, created_at`
    });
    return {
      create: (input) => sql.withTransaction(
        Effect9.gen(function* () {
          const tenant = yield* sql`SELECT 1 FROM tenants WHERE id = ${input.tenantId}`;
          if (tenant.length === 0) return yield* new TenantNotFound({ tenantId: input.tenantId });
          const [row] = yield* insertCompany(input);
          yield* jobs.enqueue(RescoreCompany, { companyId: row.id });
          return toCompany(row);
        })
      ).pipe(Effect9.catchTags({ SqlError: Effect9.die, ParseError: Effect9.die })),
      update: (input) => sql.withTransaction(
        Effect9.gen(function* () {
          const [before] = yield* lockCompany(input.id);
          if (before === void 0) return yield* new CompanyNotFound({ id: input.id });
          const next = {
            name: input.name ?? before.name,
            description: input.description ?? before.description,
            fiscalCode: input.fiscalCode === void 0 ? before.fiscal_code : input.fiscalCode,
            // Stored NULL when empty: "not set", so scoring infers them from the award history.
            counties: input.counties === void 0 ? before.counties : input.counties.length === 0 ? null : input.counties
          };
          const [row] = yield* updateCompany({ id: input.id, ...next });
          if (next.description !== before.description || next.fiscalCode !== before.fiscal_code || String(next.counties) !== String(before.counties)) {
            yield* jobs.enqueue(RescoreCompany, { companyId: input.id });
          }
          return toCompany(row);
        })
      ).pipe(Effect9.catchTags({ SqlError: Effect9.die, ParseError: Effect9.die }))
    };
  })
).pipe(Layer3.provide(JobQueueLive));

// src/infra/accounts/CompanyProfilesRepo.ts
import { SqlClient as SqlClient5, SqlSchema as SqlSchema3 } from "@effect/sql";
import { Context as Context3, Effect as Effect10, Layer as Layer4, Option as Option4, Schema as Schema7 } from "effect";
var CompanyProfilesRepo = class extends Context3.Tag("CompanyProfilesRepo")() {
};
var CompanyRow2 = Schema7.Struct({
  id: Schema7.String,
  name: Schema7.String,
  description: Schema7.String,
  fiscal_code: Schema7.NullOr(Schema7.String),
  counties: Schema7.NullOr(Schema7.Array(Schema7.String)),
  active: Schema7.Boolean,
  created_at: Schema7.DateFromSelf
});
var CompanyListRow = Schema7.Struct({ ...CompanyRow2.fields, watchlist_count: Schema7.Number });
var WatchlistRef = Schema7.Struct({ id: Schema7.String, name: Schema7.String, active: Schema7.Boolean });
var TenantCompany = Schema7.Struct({ tenantId: Schema7.String, id: Schema7.String });
var toProfile = (row) => ({
  id: row.id,
  name: row.name,
  description: row.description,
  fiscalCode: row.fiscal_code,
  counties: row.counties ?? [],
  active: row.active,
  createdAt: row.created_at
});
var CompanyProfilesRepoLive = Layer4.effect(
  CompanyProfilesRepo,
  Effect10.gen(function* () {
    const sql = yield* SqlClient5.SqlClient;
    const jobs = yield* JobQueue;
    const listCompanies = SqlSchema3.findAll({
      Request: Schema7.String,
      Result: CompanyListRow,
      execute: (tenantId) => sql`
        SELECT c.id, c.name, c.description, c.fiscal_code, c.counties, c.active, c.created_at,
               (SELECT count(*)::int FROM watchlists w WHERE w.company_id = c.id AND w.deleted_at IS NULL)
                 AS watchlist_count
        FROM companies c WHERE c.tenant_id = ${tenantId}
        ORDER BY c.created_at, c.id`
    });
    const watchlistsOf = SqlSchema3.findAll({
      Request: Schema7.String,
      Result: WatchlistRef,
      execute: (companyId) => sql`
        SELECT id, name, active FROM watchlists WHERE company_id = ${companyId} AND deleted_at IS NULL
        ORDER BY created_at, id`
    });
    const findCompany = SqlSchema3.findOne({
      Request: TenantCompany,
      Result: CompanyRow2,
      execute: (input) => sql`
        SELECT id, name, description, fiscal_code, counties, active, created_at FROM companies
        WHERE id = ${input.id} AND tenant_id = ${input.tenantId}`
    });
    const insertCompany = SqlSchema3.findAll({
      Request: Schema7.Struct({
        tenantId: Schema7.String,
        name: Schema7.String,
        description: Schema7.String,
        fiscalCode: Schema7.NullOr(Schema7.String)
      }),
      Result: CompanyRow2,
      execute: (input) => sql`
        INSERT INTO companies (tenant_id, name, description, fiscal_code)
        VALUES (${input.tenantId}, ${input.name}, ${input.description}, ${input.fiscalCode})
        RETURNING id, name, description, fiscal_code, counties, active, created_at`
    });
    const lockCompany = SqlSchema3.findAll({
      Request: TenantCompany,
      Result: Schema7.Struct({
        description: Schema7.String,
        fiscal_code: Schema7.NullOr(Schema7.String),
        counties: Schema7.NullOr(Schema7.Array(Schema7.String)),
        active: Schema7.Boolean
      }),
      execute: (input) => sql`
        SELECT description, fiscal_code, counties, active FROM companies
        WHERE id = ${input.id} AND tenant_id = ${input.tenantId} FOR UPDATE`
    });
    const updateCompany = SqlSchema3.findAll({
      Request: Schema7.Struct({
        id: Schema7.String,
        name: Schema7.NullOr(Schema7.String),
        description: Schema7.NullOr(Schema7.String),
        fiscalCode: Schema7.NullOr(Schema7.String),
        counties: Schema7.NullOr(Schema7.Array(Schema7.String)),
        active: Schema7.NullOr(Schema7.Boolean)
      }),
      Result: CompanyRow2,
      execute: (input) => sql`
        UPDATE companies SET
          name = coalesce(${input.name}, name),
          description = coalesce(${input.description}, description),
          fiscal_code = ${input.fiscalCode},
          counties = ${input.counties}::text[],
          active = coalesce(${input.active}::boolean, active),
          updated_at = now()
        WHERE id = ${input.id}
        RETURNING id, name, description, fiscal_code, counties, active, created_at`
    });
    const list = (tenantId) => listCompanies(tenantId).pipe(
      Effect10.map((rows) => rows.map((row) => ({ ...toProfile(row), watchlistCount: row.watchlist_count }))),
      Effect10.orDie
    );
    const awardCounties = SqlSchema3.findAll({
      Request: Schema7.String,
      Result: Schema7.Struct({ county: Schema7.NullOr(Schema7.String) }),
      execute: (companyId) => sql`
        SELECT ca.county FROM companies c
        JOIN tenders a ON a.notice_type = 'award' AND a.winner_fiscal_codes @> ARRAY[c.fiscal_code]::text[]
        JOIN contracting_authorities ca ON ca.id = a.authority_id
        WHERE c.id = ${companyId} AND c.fiscal_code IS NOT NULL`
    });
    const detail = (row) => Effect10.all([watchlistsOf(row.id), awardCounties(row.id)]).pipe(
      Effect10.map(
        ([watchlists, awards]) => ({
          ...toProfile(row),
          inferredCounties: inferCounties(
            awards.map((award) => ({ county: award.county === null ? null : canonicalCounty(award.county) }))
          ),
          watchlists
        })
      )
    );
    const get = (input) => findCompany(input).pipe(
      Effect10.orDie,
      Effect10.flatMap(
        Option4.match({
          onNone: () => Effect10.fail(new CompanyNotFound({ id: input.id })),
          onSome: (row) => Effect10.orDie(detail(row))
        })
      )
    );
    const create = (input) => sql.withTransaction(
      Effect10.gen(function* () {
        const [row] = yield* insertCompany(input);
        yield* jobs.enqueue(RescoreCompany, { companyId: row.id });
        return yield* detail(row);
      })
    ).pipe(Effect10.orDie);
    const update = (input) => sql.withTransaction(
      Effect10.gen(function* () {
        const [before] = yield* lockCompany(input);
        if (before === void 0) return yield* new CompanyNotFound({ id: input.id });
        const fiscalCode = input.fiscalCode === void 0 ? before.fiscal_code : input.fiscalCode;
        const counties = input.counties === void 0 ? before.counties : input.counties.length === 0 ? null : input.counties;
        const [row] = yield* updateCompany({
          id: input.id,
          name: input.name ?? null,
          description: input.description ?? null,
          fiscalCode,
          counties,
          active: input.active ?? null
        });
        const rescore = row.active && (row.description !== before.description || row.fiscal_code !== before.fiscal_code || String(row.counties) !== String(before.counties) || !before.active);
        if (rescore) yield* jobs.enqueue(RescoreCompany, { companyId: input.id });
        return yield* detail(row);
      })
    ).pipe(Effect10.catchTags({ SqlError: Effect10.die, ParseError: Effect10.die }));
    return { list, get, create, update };
  })
).pipe(Layer4.provide(JobQueueLive));

// src/infra/accounts/TenantsRepo.ts
import { SqlClient as SqlClient6, SqlSchema as SqlSchema4 } from "@effect/sql";
import { Context as Context4, Effect as Effect11, Layer as Layer5, Option as Option5, Schema as Schema9 } from "effect";

// src/domain/Plan.ts
import { Schema as Schema8 } from "effect";
var Plan = Schema8.Literal("free", "starter", "activ", "consultant");
var planRules = {
  free: { apiAccess: false, monthlyCredits: 0, watchlistLimit: 1, multiClientWorkspace: false },
  starter: { apiAccess: false, monthlyCredits: 0, watchlistLimit: 5, multiClientWorkspace: false },
  activ: { apiAccess: false, monthlyCredits: 0, watchlistLimit: 20, multiClientWorkspace: false },
  consultant: { apiAccess: true, monthlyCredits: 1500, watchlistLimit: 100, multiClientWorkspace: true }
};

// src/infra/accounts/TenantsRepo.ts
var TenantsRepo = class extends Context4.Tag("TenantsRepo")() {
};
var TenantRow = Schema9.Struct({ id: Schema9.String, name: Schema9.String, plan: Plan });
var TenantSummary = Schema9.Struct({
  id: Schema9.String,
  name: Schema9.String,
  plan: Plan,
  createdAt: Schema9.DateFromSelf,
  userEmails: Schema9.Array(Schema9.String),
  companyCount: Schema9.Int
});
var TenantsRepoLive = Layer5.effect(
  TenantsRepo,
  Effect11.gen(function* () {
    const sql = yield* SqlClient6.SqlClient;
    const findTenant = SqlSchema4.findOne({
      Request: Schema9.String,
      Result: TenantRow,
      execute: (tenantId) => sql`SELECT id, name, plan FROM tenants WHERE id = ${tenantId}`
    });
    const insertTenant = SqlSchema4.single({
      Request: Schema9.Struct({ name: Schema9.String, plan: Plan }),
      Result: TenantRow,
      execute: (input) => sql`INSERT INTO tenants (name, plan) VALUES (${input.name}, ${input.plan}) RETURNING id, name, plan`
    });
    const noTenant = SqlSchema4.single({
      Request: Schema9.Void,
      Result: Schema9.Struct({ none: Schema9.Boolean }),
      execute: () => sql`SELECT NOT EXISTS (SELECT 1 FROM tenants) AS none`
    });
    const listTenants = SqlSchema4.findAll({
      Request: Schema9.Void,
      Result: TenantSummary,
      execute: () => sql`
        SELECT t.id, t.name, t.plan, t.created_at AS "createdAt",
               coalesce((SELECT array_agg(u.email ORDER BY u.email) FROM users u WHERE u.tenant_id = t.id), '{}')
                 AS "userEmails",
               (SELECT count(*)::int FROM companies c WHERE c.tenant_id = t.id) AS "companyCount"
        FROM tenants t
        ORDER BY t.created_at, t.id`
    });
    const find = (tenantId) => findTenant(tenantId).pipe(Effect11.orDie);
    return {
      create: (input) => insertTenant(input).pipe(Effect11.orDie),
      find,
      get: (tenantId) => find(tenantId).pipe(
        Effect11.flatMap(
          Option5.match({ onNone: () => Effect11.fail(new TenantNotFound({ tenantId })), onSome: Effect11.succeed })
        )
      ),
      list: listTenants().pipe(Effect11.orDie),
      none: noTenant().pipe(
        Effect11.map((row) => row.none),
        Effect11.orDie
      )
    };
  })
);

// src/infra/accounts/UsersRepo.ts
import { SqlClient as SqlClient7, SqlSchema as SqlSchema5 } from "@effect/sql";
import { Context as Context5, Effect as Effect13, Layer as Layer6, Option as Option6, Schema as Schema10 } from "effect";

// src/infra/auth/PasswordHasher.ts
import { hash, verify } from "@node-rs/argon2";
import { Effect as Effect12 } from "effect";
var ARGON2ID = {
  algorithm: 2,
  memoryCost: 19 * 1024,
  timeCost: 2,
  parallelism: 1
};
var hashPassword = (password) => Effect12.promise(() => hash(password, ARGON2ID));

// src/infra/accounts/UsersRepo.ts
var UsersRepo = class extends Context5.Tag("UsersRepo")() {
};
var normalizeEmail = (email) => email.trim().toLowerCase();
var UserRow = Schema10.Struct({
  id: Schema10.String,
  tenant_id: Schema10.String,
  email: Schema10.String,
  password_hash: Schema10.String
});
var toUser = (row) => ({
  id: row.id,
  tenantId: row.tenant_id,
  email: row.email,
  passwordHash: row.password_hash
});
var UsersRepoLive = Layer6.effect(
  UsersRepo,
  Effect13.gen(function* () {
    const sql = yield* SqlClient7.SqlClient;
    const insertUser = SqlSchema5.findOne({
      Request: Schema10.Struct({ tenantId: Schema10.String, email: Schema10.String, passwordHash: Schema10.String }),
      Result: UserRow,
      execute: (input) => sql`
        INSERT INTO users (tenant_id, email, password_hash)
        VALUES (${input.tenantId}, ${input.email}, ${input.passwordHash})
        ON CONFLICT (email) DO NOTHING
        RETURNING id, tenant_id, email, password_hash`
    });
    const findUser = SqlSchema5.findOne({
      Request: Schema10.String,
      Result: UserRow,
      execute: (email) => sql`SELECT id, tenant_id, email, password_hash FROM users WHERE email = ${email}`
    });
    return {
      create: (input) => Effect13.gen(function* () {
        const email = normalizeEmail(input.email);
        const passwordHash = yield* hashPassword(input.password);
        const tenant = yield* sql`SELECT 1 FROM tenants WHERE id = ${input.tenantId}`.pipe(Effect13.orDie);
        if (tenant.length === 0) return yield* new TenantNotFound({ tenantId: input.tenantId });
        const row = yield* insertUser({ tenantId: input.tenantId, email, passwordHash }).pipe(Effect13.orDie);
        if (Option6.isNone(row)) return yield* new EmailTaken({ email });
        return toUser(row.value);
      }),
      findByEmail: (email) => findUser(normalizeEmail(email)).pipe(Effect13.map(Option6.map(toUser)), Effect13.orDie)
    };
  })
);

// src/infra/accounts/WatchlistsRepo.ts
import { SqlClient as SqlClient8, SqlSchema as SqlSchema6 } from "@effect/sql";
import { Context as Context6, Effect as Effect14, Layer as Layer7, Option as Option7, Schema as Schema11 } from "effect";

// src/domain/tenders/Cpv.ts
import { Either } from "effect";
var makeCpvCatalog = (rows) => {
  const catalog = /* @__PURE__ */ new Map();
  for (const { code_full } of rows) catalog.set(code_full.slice(0, 8), code_full);
  return catalog;
};
var CPV_SHAPE = /^([0-9]{8})(?:-([0-9]))?$/;
var cpvCatalogKey = (input) => CPV_SHAPE.exec(input.replace(/\s+/g, ""))?.[1] ?? null;
var checkCpvCode = (catalog, input) => {
  const match = CPV_SHAPE.exec(input.replace(/\s+/g, ""));
  if (match === null) return Either.left({ _tag: "Malformed", input });
  const canonical = catalog.get(match[1]);
  if (canonical === void 0) return Either.left({ _tag: "Unknown", input });
  if (match[2] !== void 0 && canonical !== `${match[1]}-${match[2]}`) {
    return Either.left({ _tag: "WrongCheckDigit", input, canonical });
  }
  return Either.right(canonical);
};

// src/infra/accounts/WatchlistsRepo.ts
var WatchlistsRepo = class extends Context6.Tag("WatchlistsRepo")() {
};
var WatchlistRow = Schema11.Struct({
  id: Schema11.String,
  company_id: Schema11.String,
  name: Schema11.String,
  cpv_codes: Schema11.Array(Schema11.String),
  keywords: Schema11.Array(Schema11.String),
  min_value: Schema11.NullOr(Schema11.String),
  max_value: Schema11.NullOr(Schema11.String),
  authority_id: Schema11.NullOr(Schema11.String),
  min_score: Schema11.Number,
  counties: Schema11.Array(Schema11.String),
  active: Schema11.Boolean,
  created_at: Schema11.DateFromSelf
});
var TenantWatchlist = Schema11.Struct({ tenantId: Schema11.String, id: Schema11.String });
var WatchlistWrite = Schema11.Struct({
  companyId: Schema11.String,
  name: Schema11.String,
  cpvCodes: Schema11.Array(Schema11.String),
  keywords: Schema11.Array(Schema11.String),
  minValue: Schema11.NullOr(Schema11.Number),
  maxValue: Schema11.NullOr(Schema11.Number),
  authorityId: Schema11.NullOr(Schema11.String),
  minScore: Schema11.Number,
  counties: Schema11.Array(Schema11.String)
});
var toWatchlist = (row) => ({
  id: row.id,
  companyId: row.company_id,
  name: row.name,
  cpvCodes: row.cpv_codes.map((code) => code.trim()),
  keywords: row.keywords,
  minValue: row.min_value === null ? null : Number(row.min_value),
  maxValue: row.max_value === null ? null : Number(row.max_value),
  authorityId: row.authority_id,
  minScore: row.min_score,
  counties: row.counties,
  active: row.active,
  createdAt: row.created_at
});
var cpvProblemMessage = (problem) => {
  switch (problem._tag) {
    case "Malformed":
      return `malformed CPV code ${problem.input}`;
    case "Unknown":
      return `unknown CPV code ${problem.input}`;
    case "WrongCheckDigit":
      return `wrong check digit in ${problem.input}; the code is ${problem.canonical}`;
  }
};
var WatchlistsRepoLive = Layer7.effect(
  WatchlistsRepo,
  Effect14.gen(function* () {
    const sql = yield* SqlClient8.SqlClient;
    const jobs = yield* JobQueue;
    const columns = sql`id, company_id, name, cpv_codes, keywords, min_value, max_value, authority_id, min_score,
      counties, active, created_at`;
    const cpvRows = SqlSchema6.findAll({
      Request: Schema11.Array(Schema11.String),
      Result: Schema11.Struct({ code_full: Schema11.String }),
      execute: (keys) => sql`SELECT code_full FROM cpv_codes WHERE code = ANY(${keys})`
    });
    const firstCompany = SqlSchema6.findOne({
      Request: Schema11.String,
      Result: Schema11.Struct({ id: Schema11.String }),
      execute: (tenantId) => sql`
        SELECT id FROM companies WHERE tenant_id = ${tenantId} ORDER BY created_at, id LIMIT 1`
    });
    const activeWatchlists = SqlSchema6.findAll({
      Request: Schema11.String,
      Result: WatchlistRow,
      execute: (tenantId) => sql`
        SELECT ${columns} FROM watchlists WHERE tenant_id = ${tenantId} AND deleted_at IS NULL
        ORDER BY created_at, id`
    });
    const countActive = SqlSchema6.single({
      Request: Schema11.String,
      Result: Schema11.Struct({ active: Schema11.Number }),
      execute: (tenantId) => sql`
        SELECT count(*)::int AS active FROM watchlists WHERE tenant_id = ${tenantId} AND deleted_at IS NULL`
    });
    const insertWatchlist = SqlSchema6.single({
      Request: Schema11.Struct({ tenantId: Schema11.String, ...WatchlistWrite.fields }),
      Result: WatchlistRow,
      execute: (input) => sql`
        INSERT INTO watchlists (tenant_id, company_id, name, cpv_codes, keywords, min_value, max_value,
                                authority_id, min_score, counties)
        VALUES (${input.tenantId}, ${input.companyId}, ${input.name}, ${input.cpvCodes}::text[],
                ${input.keywords}::text[], ${input.minValue}, ${input.maxValue}, ${input.authorityId},
                ${input.minScore}, ${input.counties}::text[])
        RETURNING ${columns}`
    });
    const lockWatchlist = SqlSchema6.findOne({
      Request: TenantWatchlist,
      Result: WatchlistRow,
      execute: (input) => sql`
        SELECT ${columns} FROM watchlists
        WHERE id = ${input.id} AND tenant_id = ${input.tenantId} AND deleted_at IS NULL FOR UPDATE`
    });
    const updateWatchlist = SqlSchema6.single({
      Request: Schema11.Struct({ id: Schema11.String, ...WatchlistWrite.fields }),
      Result: WatchlistRow,
      execute: (input) => sql`
        UPDATE watchlists SET
          name = ${input.name}, cpv_codes = ${input.cpvCodes}::text[],
          keywords = ${input.keywords}::text[], min_value = ${input.minValue}, max_value = ${input.maxValue},
          authority_id = ${input.authorityId}, min_score = ${input.minScore}, company_id = ${input.companyId},
          counties = ${input.counties}::text[],
          updated_at = now()
        WHERE id = ${input.id}
        RETURNING ${columns}`
    });
    const deleteWatchlist = SqlSchema6.findOne({
      Request: TenantWatchlist,
      Result: Schema11.Struct({ company_id: Schema11.String }),
      execute: (input) => sql`
        UPDATE watchlists SET deleted_at = now(), active = false, updated_at = now()
        WHERE id = ${input.id} AND tenant_id = ${input.tenantId} AND deleted_at IS NULL
        RETURNING company_id`
    });
    const canonicalCpvCodes = (codes) => Effect14.gen(function* () {
      const keys = codes.map(cpvCatalogKey).filter((key) => key !== null);
      const catalog = makeCpvCatalog(keys.length === 0 ? [] : yield* cpvRows(keys));
      const problems = [];
      const canonical = [];
      codes.forEach((code, index) => {
        const checked = checkCpvCode(catalog, code);
        if (checked._tag === "Left") {
          problems.push({ path: `cpvCodes.${index}`, message: cpvProblemMessage(checked.left) });
        } else if (!canonical.includes(checked.right)) canonical.push(checked.right);
      });
      return { canonical, problems };
    });
    const checkReferences = (tenantId, fields, cpvCodes) => Effect14.gen(function* () {
      const problems = [];
      const cpv = cpvCodes === void 0 ? void 0 : yield* canonicalCpvCodes(cpvCodes);
      if (cpv !== void 0) problems.push(...cpv.problems);
      if (fields.minValue !== null && fields.maxValue !== null && fields.minValue > fields.maxValue)
        problems.push({ path: "minValue", message: "must not be greater than maxValue" });
      if (fields.authorityId !== null) {
        const found = yield* sql`SELECT 1 FROM contracting_authorities WHERE id = ${fields.authorityId}`;
        if (found.length === 0) problems.push({ path: "authorityId", message: "unknown contracting authority" });
      }
      let companyId = fields.companyId;
      if (companyId === void 0) {
        const first = yield* firstCompany(tenantId);
        if (Option7.isNone(first)) problems.push({ path: "companyId", message: "the account has no company yet" });
        companyId = Option7.getOrUndefined(first)?.id;
      } else {
        const found = yield* sql`SELECT 1 FROM companies WHERE id = ${companyId} AND tenant_id = ${tenantId}`;
        if (found.length === 0) problems.push({ path: "companyId", message: "no such company in this account" });
      }
      if (problems.length > 0) return yield* new WatchlistInvalid({ problems });
      return { cpvCodes: cpv?.canonical, companyId };
    });
    const rescore = (companyIds) => Effect14.forEach(new Set(companyIds), (companyId) => jobs.enqueue(RescoreCompany, { companyId }), { discard: true });
    const list = (tenantId) => activeWatchlists(tenantId).pipe(
      Effect14.map((rows) => rows.map(toWatchlist)),
      Effect14.orDie
    );
    const create = (input) => sql.withTransaction(
      Effect14.gen(function* () {
        const { fields, tenantId } = input;
        const refs = yield* checkReferences(tenantId, fields, fields.cpvCodes);
        yield* sql`SELECT id FROM tenants WHERE id = ${tenantId} FOR UPDATE`;
        const { active } = yield* countActive(tenantId);
        if (active >= input.limit) return yield* new WatchlistLimitReached({ limit: input.limit });
        const row = yield* insertWatchlist({
          tenantId,
          companyId: refs.companyId,
          name: fields.name,
          cpvCodes: refs.cpvCodes ?? [],
          keywords: fields.keywords,
          minValue: fields.minValue,
          maxValue: fields.maxValue,
          authorityId: fields.authorityId,
          minScore: fields.minScore,
          counties: fields.counties ?? []
        });
        yield* rescore([refs.companyId]);
        return toWatchlist(row);
      })
    ).pipe(Effect14.catchTags({ SqlError: Effect14.die, ParseError: Effect14.die, NoSuchElementException: Effect14.die }));
    const update = (input) => sql.withTransaction(
      Effect14.gen(function* () {
        const row = yield* lockWatchlist(input);
        if (Option7.isNone(row)) return yield* new WatchlistNotFound({ id: input.id });
        const stored = toWatchlist(row.value);
        const { patch } = input;
        const merged = {
          name: patch.name ?? stored.name,
          keywords: patch.keywords ?? stored.keywords,
          minValue: patch.minValue === void 0 ? stored.minValue : patch.minValue,
          maxValue: patch.maxValue === void 0 ? stored.maxValue : patch.maxValue,
          authorityId: patch.authorityId === void 0 ? stored.authorityId : patch.authorityId,
          minScore: patch.minScore ?? stored.minScore,
          counties: patch.counties ?? stored.counties
        };
        const refs = yield* checkReferences(
          input.tenantId,
          { ...merged, companyId: patch.companyId ?? stored.companyId },
          patch.cpvCodes
        );
        const updated = yield* updateWatchlist({
          ...merged,
          id: input.id,
          cpvCodes: refs.cpvCodes ?? stored.cpvCodes,
          companyId: refs.companyId
        });
        yield* rescore([stored.companyId, refs.companyId]);
        return toWatchlist(updated);
      })
    ).pipe(Effect14.catchTags({ SqlError: Effect14.die, ParseError: Effect14.die, NoSuchElementException: Effect14.die }));
    const remove = (input) => sql.withTransaction(
      Effect14.gen(function* () {
        const row = yield* deleteWatchlist(input);
        if (Option7.isNone(row)) return yield* new WatchlistNotFound({ id: input.id });
        yield* rescore([row.value.company_id]);
      })
    ).pipe(Effect14.catchTags({ SqlError: Effect14.die, ParseError: Effect14.die }));
    return { list, create, update, remove };
  })
).pipe(Layer7.provide(JobQueueLive));

// src/infra/alerts/AlertsRepo.ts
import { SqlClient as SqlClient9, SqlSchema as SqlSchema7 } from "@effect/sql";
import { Context as Context7, Effect as Effect15, Layer as Layer8, Option as Option8, Schema as Schema13 } from "effect";

// src/domain/scoring/Verdict.ts
import { Schema as Schema12 } from "effect";
var Verdict = Schema12.Literal("GO", "RESEARCH", "SKIP");
var RANK = { SKIP: 0, RESEARCH: 1, GO: 2 };
var verdictRose = (before, after2) => RANK[after2] > (before === void 0 ? -1 : RANK[before]);

// src/infra/alerts/AlertsRepo.ts
var AlertsRepo = class extends Context7.Tag("AlertsRepo")() {
};
var AlertRow = Schema13.Struct({
  id: Schema13.String,
  tender_id: Schema13.String,
  tender_title: Schema13.String,
  score: Schema13.Number,
  verdict: Verdict,
  watchlist_id: Schema13.String,
  watchlist_name: Schema13.String,
  company_id: Schema13.String,
  company_name: Schema13.String,
  read: Schema13.Boolean,
  created_at: Schema13.DateFromSelf
});
var AlertsMatching = Schema13.Struct({
  tenantId: Schema13.String,
  filters: Schema13.Struct({
    unread: Schema13.optionalWith(Schema13.Boolean, { exact: true }),
    watchlistId: Schema13.optionalWith(Schema13.String, { exact: true }),
    verdict: Schema13.optionalWith(Verdict, { exact: true }),
    createdAfter: Schema13.optionalWith(Schema13.DateFromSelf, { exact: true })
  })
});
var IdRow2 = Schema13.Struct({ id: Schema13.String });
var toAlert = (row) => ({
  id: row.id,
  tenderId: row.tender_id,
  tenderTitle: row.tender_title,
  score: row.score,
  verdict: row.verdict,
  watchlistId: row.watchlist_id,
  watchlistName: row.watchlist_name,
  companyId: row.company_id,
  companyName: row.company_name,
  read: row.read,
  createdAt: row.created_at
});
var AlertsRepoLive = Layer8.effect(
  AlertsRepo,
  Effect15.gen(function* () {
    const sql = yield* SqlClient9.SqlClient;
    const selectAlerts = sql`
      SELECT a.id, a.tender_id, t.title AS tender_title, a.score, a.verdict, a.watchlist_id,
             w.name AS watchlist_name, a.company_id, c.name AS company_name, a.read, a.created_at
      FROM alerts a JOIN tenders t ON t.id = a.tender_id JOIN watchlists w ON w.id = a.watchlist_id
        JOIN companies c ON c.id = a.company_id`;
    const matching = ({ tenantId, filters }) => sql.and([
      sql`a.tenant_id = ${tenantId}`,
      ...filters.unread === void 0 ? [] : [sql`a.read = ${!filters.unread}`],
      ...filters.watchlistId === void 0 ? [] : [sql`a.watchlist_id = ${filters.watchlistId}`],
      ...filters.verdict === void 0 ? [] : [sql`a.verdict = ${filters.verdict}`],
      ...filters.createdAfter === void 0 ? [] : [sql`a.created_at > ${filters.createdAfter}`]
    ]);
    const countAlerts = SqlSchema7.single({
      Request: AlertsMatching,
      Result: Schema13.Struct({ total: Schema13.Number }),
      execute: (input) => sql`SELECT count(*)::int AS total FROM alerts a WHERE ${matching(input)}`
    });
    const alertsPage = SqlSchema7.findAll({
      Request: Schema13.Struct({ ...AlertsMatching.fields, offset: Schema13.Number, limit: Schema13.Number }),
      Result: AlertRow,
      execute: (input) => sql`
        ${selectAlerts} WHERE ${matching(input)}
        ORDER BY a.created_at DESC, a.score DESC, a.id DESC LIMIT ${input.limit} OFFSET ${input.offset}`
    });
    const markRead = SqlSchema7.findOne({
      Request: Schema13.Struct({ tenantId: Schema13.String, id: Schema13.String, read: Schema13.Boolean }),
      Result: IdRow2,
      execute: (input) => sql`
        UPDATE alerts SET read = ${input.read} WHERE id = ${input.id} AND tenant_id = ${input.tenantId} RETURNING id`
    });
    const alertById = SqlSchema7.single({
      Request: Schema13.String,
      Result: AlertRow,
      execute: (id) => sql`${selectAlerts} WHERE a.id = ${id}`
    });
    const markUnreadRead = SqlSchema7.findAll({
      Request: Schema13.String,
      Result: IdRow2,
      execute: (tenantId) => sql`UPDATE alerts SET read = true WHERE tenant_id = ${tenantId} AND NOT read RETURNING id`
    });
    const list = (input) => Effect15.gen(function* () {
      const { total } = yield* countAlerts(input);
      const rows = yield* alertsPage(input);
      return { alerts: rows.map(toAlert), total };
    }).pipe(Effect15.orDie);
    const setRead = (input) => Effect15.gen(function* () {
      const updated = yield* markRead(input).pipe(Effect15.orDie);
      if (Option8.isNone(updated)) return yield* new AlertNotFound({ id: input.id });
      const row = yield* alertById(input.id).pipe(Effect15.orDie);
      return toAlert(row);
    });
    const markAllRead = (tenantId) => markUnreadRead(tenantId).pipe(
      Effect15.map((rows) => rows.length),
      Effect15.orDie
    );
    const ownsWatchlist = (input) => sql`SELECT 1 FROM watchlists WHERE id = ${input.watchlistId} AND tenant_id = ${input.tenantId}`.pipe(
      Effect15.map((rows) => rows.length > 0),
      Effect15.orDie
    );
    return { list, setRead, markAllRead, ownsWatchlist };
  })
);

// src/infra/alerts/AlertWriter.ts
import { SqlClient as SqlClient10 } from "@effect/sql";
import { Context as Context8, Effect as Effect16, Layer as Layer9 } from "effect";
var AlertWriter = class extends Context8.Tag("AlertWriter")() {
};
var AlertWriterLive = Layer9.effect(
  AlertWriter,
  Effect16.map(SqlClient10.SqlClient, (sql) => ({
    recordMatches: (matches) => {
      const rows = matches.flatMap((match) => match.watchlistIds.map((watchlistId) => ({ match, watchlistId })));
      if (rows.length === 0) return Effect16.succeed(0);
      return Effect16.flatMap(
        Effect16.map(clockNow, (now2) => new Date(now2.getTime() - now2.getTime() % 1e3)),
        (now2) => sql`
        INSERT INTO alerts (tenant_id, company_id, watchlist_id, tender_id, score, verdict, created_at)
        SELECT *, ${now2}::timestamptz
        FROM unnest(${rows.map((r) => r.match.tenantId)}::uuid[], ${rows.map((r) => r.match.companyId)}::uuid[],
                    ${rows.map((r) => r.watchlistId)}::uuid[], ${rows.map((r) => r.match.tenderId)}::uuid[],
                    ${rows.map((r) => r.match.score)}::smallint[], ${rows.map((r) => r.match.verdict)}::text[])
        ON CONFLICT (watchlist_id, tender_id) DO NOTHING
        RETURNING 1`
      ).pipe(
        Effect16.map((inserted) => inserted.length),
        Effect16.orDie
      );
    }
  }))
);

// src/infra/auth/ApiKeysRepo.ts
import { timingSafeEqual } from "node:crypto";
import { SqlClient as SqlClient11, SqlSchema as SqlSchema8 } from "@effect/sql";
import { Context as Context10, Effect as Effect20, Layer as Layer11, Option as Option10, Schema as Schema14 } from "effect";

// src/domain/ApiKey.ts
import { createHash, randomBytes } from "node:crypto";
var MAX_ACTIVE_API_KEYS = 3;
var generateApiKey = () => `svc_${randomBytes(32).toString("hex")}`;
var hashApiKey = (key) => createHash("sha256").update(key, "utf8").digest();
var maskApiKey = (key) => `${key.slice(0, 12)}\u2026`;

// src/infra/db/PreparedStatements.ts
import { SqlError as SqlError2 } from "@effect/sql";
import { Effect as Effect18, Option as Option9 } from "effect";

// src/infra/db/PgPool.ts
import { SqlError } from "@effect/sql";
import { PgClient as PgClient2 } from "@effect/sql-pg";
import { Context as Context9, Effect as Effect17, Layer as Layer10, Redacted } from "effect";
import pg from "pg";
var PgPool = class extends Context9.Tag("PgPool")() {
};
var ReadPool = class extends Context9.Tag("ReadPool")() {
};

// src/infra/db/PreparedStatements.ts
var statement = (name, text) => ({ name, text });
var runPreparedOn = (pool) => (statement2, params) => Effect18.async((resume) => {
  pool.query(
    { name: statement2.name, text: statement2.text, values: params },
    (cause, result) => resume(
      cause ? Effect18.fail(new SqlError2.SqlError({ cause, message: `Failed to execute ${statement2.name}` })) : Effect18.succeed(result.rows)
    )
  );
}).pipe(Effect18.orDie);
var makeRunPrepared = Effect18.map(PgPool, runPreparedOn);
var makeRunPreparedOnReplica = Effect18.map(Effect18.serviceOption(ReadPool), Option9.map(runPreparedOn));
var runOnSqlClient = (sql, statement2, params) => sql.unsafe(statement2.text, params);

// src/infra/db/TenantLock.ts
import { Effect as Effect19 } from "effect";
var lockTenant = (sql, tenantId) => sql`SELECT id FROM tenants WHERE id = ${tenantId} FOR UPDATE`.pipe(
  Effect19.flatMap((rows) => rows.length === 0 ? Effect19.fail(new TenantNotFound({ tenantId })) : Effect19.void)
);

// src/infra/auth/ApiKeyStatements.ts
var ApiKeyStatements = {
  /** Run on every key-API request; the index finds the row by the key's hash. */
  apiKeyOwner: statement(
    "tss_api_key_owner",
    `
  SELECT k.id, k.tenant_id, t.plan, k.revoked_at IS NOT NULL AS revoked, k.key_hash
  FROM api_keys k JOIN tenants t ON t.id = k.tenant_id
  WHERE k.key_hash = $1`
  )
};

// src/infra/auth/ApiKeysRepo.ts
var ApiKeysRepo = class extends Context10.Tag("ApiKeysRepo")() {
};
var KeyRow = Schema14.Struct({
  id: Schema14.String,
  name: Schema14.String,
  display_prefix: Schema14.String,
  created_at: Schema14.DateFromSelf,
  revoked_at: Schema14.NullOr(Schema14.DateFromSelf)
});
var toSummary = (row) => ({
  id: row.id,
  name: row.name,
  masked: row.display_prefix,
  createdAt: row.created_at,
  revokedAt: row.revoked_at
});
var ApiKeysRepoLive = Layer11.effect(
  ApiKeysRepo,
  Effect20.gen(function* () {
    const sql = yield* SqlClient11.SqlClient;
    const runPrepared = yield* makeRunPrepared;
    const countActive = SqlSchema8.single({
      Request: Schema14.String,
      Result: Schema14.Struct({ active: Schema14.Number }),
      execute: (tenantId) => sql`
        SELECT count(*)::int AS active FROM api_keys WHERE tenant_id = ${tenantId} AND revoked_at IS NULL`
    });
    const insertKey = SqlSchema8.single({
      Request: Schema14.Struct({
        tenantId: Schema14.String,
        name: Schema14.String,
        keyHash: Schema14.Uint8ArrayFromSelf,
        displayPrefix: Schema14.String
      }),
      Result: KeyRow,
      execute: (input) => sql`
        INSERT INTO api_keys (tenant_id, name, key_hash, display_prefix)
        VALUES (${input.tenantId}, ${input.name}, ${input.keyHash}, ${input.displayPrefix})
        RETURNING id, name, display_prefix, created_at, revoked_at`
    });
    const revokeKey = SqlSchema8.findOne({
      Request: Schema14.Struct({ keyId: Schema14.String, tenantId: Schema14.optionalWith(Schema14.String, { exact: true }) }),
      Result: KeyRow,
      execute: (input) => sql`
        UPDATE api_keys SET revoked_at = coalesce(revoked_at, now())
        WHERE id = ${input.keyId} ${input.tenantId === void 0 ? sql`` : sql`AND tenant_id = ${input.tenantId}`}
        RETURNING id, name, display_prefix, created_at, revoked_at`
    });
    const keysOf = SqlSchema8.findAll({
      Request: Schema14.String,
      Result: KeyRow,
      execute: (tenantId) => sql`
        SELECT id, name, display_prefix, created_at, revoked_at FROM api_keys
        WHERE tenant_id = ${tenantId} ORDER BY created_at, id`
    });
    const create = (input) => sql.withTransaction(
      Effect20.gen(function* () {
        yield* lockTenant(sql, input.tenantId);
        const { active } = yield* countActive(input.tenantId);
        if (active >= MAX_ACTIVE_API_KEYS) return yield* new ApiKeyLimitExceeded({ limit: MAX_ACTIVE_API_KEYS });
        const key = generateApiKey();
        const row = yield* insertKey({
          tenantId: input.tenantId,
          name: input.name,
          keyHash: hashApiKey(key),
          displayPrefix: maskApiKey(key)
        });
        return { key, summary: toSummary(row) };
      })
    ).pipe(Effect20.catchTags({ SqlError: Effect20.die, ParseError: Effect20.die, NoSuchElementException: Effect20.die }));
    const revoke = (input) => revokeKey(input).pipe(
      Effect20.orDie,
      Effect20.flatMap(
        Option10.match({
          onNone: () => Effect20.fail(new ApiKeyNotFound({ keyId: input.keyId })),
          onSome: (row) => Effect20.succeed(toSummary(row))
        })
      )
    );
    const list = (tenantId) => keysOf(tenantId).pipe(
      Effect20.map((rows) => rows.map(toSummary)),
      Effect20.orDie
    );
    const findOwner = (presentedKey) => {
      const presentedHash = hashApiKey(presentedKey);
      return runPrepared(ApiKeyStatements.apiKeyOwner, [presentedHash]).pipe(
        Effect20.map(
          (rows) => Option10.map(
            // The index finds the row; the final equality is checked in constant time.
            Option10.filter(Option10.fromNullable(rows[0]), (row) => timingSafeEqual(row.key_hash, presentedHash)),
            (row) => ({
              keyId: row.id,
              tenantId: row.tenant_id,
              plan: row.plan,
              revoked: row.revoked
            })
          )
        )
      );
    };
    return { create, revoke, list, findOwner };
  })
);

// src/infra/billing/CreditLedger.ts
import { SqlClient as SqlClient12, SqlSchema as SqlSchema9 } from "@effect/sql";
import { Clock as Clock2, Context as Context12, Effect as Effect21, Layer as Layer12, Option as Option11, Schema as Schema15 } from "effect";

// src/domain/BucharestTime.ts
var BUCHAREST_TIME_ZONE = "Europe/Bucharest";
var offsetName = new Intl.DateTimeFormat("en-US", { timeZone: BUCHAREST_TIME_ZONE, timeZoneName: "longOffset" });
var bucharestOffsetMinutes = (epochMillis) => {
  const name = offsetName.formatToParts(epochMillis).find((part) => part.type === "timeZoneName")?.value ?? "";
  const match = /GMT([+-])(\d{2}):(\d{2})/.exec(name);
  return match === null ? 0 : (match[1] === "-" ? -1 : 1) * (Number(match[2]) * 60 + Number(match[3]));
};
var bucharestWallClockToInstant = (wallClockAsUtc) => {
  const firstGuess = wallClockAsUtc - bucharestOffsetMinutes(wallClockAsUtc) * 6e4;
  return wallClockAsUtc - bucharestOffsetMinutes(firstGuess) * 6e4;
};
var bucharestWallClock = (epochMillis) => new Date(epochMillis + bucharestOffsetMinutes(epochMillis) * 6e4);
var pad = (n) => String(n).padStart(2, "0");
var datePart = (wallClock) => `${wallClock.getUTCFullYear()}-${pad(wallClock.getUTCMonth() + 1)}-${pad(wallClock.getUTCDate())}`;
var bucharestDate = (epochMillis) => datePart(bucharestWallClock(epochMillis));
var bucharestIso = (epochMillis) => {
  const offset = bucharestOffsetMinutes(epochMillis);
  const local = new Date(epochMillis + offset * 6e4);
  const sign = offset >= 0 ? "+" : "-";
  const abs = Math.abs(offset);
  return `${datePart(local)}T${pad(local.getUTCHours())}:${pad(local.getUTCMinutes())}:${pad(local.getUTCSeconds())}${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
};

// src/domain/CreditPeriod.ts
var pad2 = (n) => String(n).padStart(2, "0");
var lastAnswer;
var creditPeriodAt = (epochMillis) => {
  const hour = Math.floor(epochMillis / 36e5);
  if (lastAnswer?.hour === hour) return lastAnswer.period;
  const period = computePeriod(epochMillis);
  lastAnswer = { hour, period };
  return period;
};
var computePeriod = (epochMillis) => {
  const local = bucharestWallClock(epochMillis);
  const year = local.getUTCFullYear();
  const month = local.getUTCMonth() + 1;
  const next = month === 12 ? { year: year + 1, month: 1 } : { year, month: month + 1 };
  const endsAt = bucharestWallClockToInstant(Date.UTC(next.year, next.month - 1, 1));
  return { start: `${year}-${pad2(month)}-01`, endsAt: new Date(endsAt), endsAtText: bucharestIso(endsAt) };
};

// src/infra/metrics/Metrics.ts
import { Context as Context11 } from "effect";
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
var HTTP_BUCKETS = [5e-3, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10];
var RENDER_BUCKETS = [0.5, 1, 2, 5, 10, 20, 30, 60, 120];
var makeMetrics = () => {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const sources = /* @__PURE__ */ new Set();
  const source = () => sources.values().next().value;
  const httpRequestDuration = new Histogram({
    name: "http_server_request_duration_seconds",
    help: "Duration of HTTP server requests, by route template, method and status",
    labelNames: ["http_route", "http_request_method", "http_response_status_code"],
    buckets: HTTP_BUCKETS,
    registers: [registry]
  });
  const jobsByStatus = new Gauge({
    name: "jobs",
    help: "Jobs of the queue by kind and status (queued includes those due later; dead are dead-lettered)",
    labelNames: ["kind", "status"],
    registers: [registry],
    async collect() {
      const rows = await source()?.queue() ?? [];
      this.reset();
      for (const row of rows) this.set({ kind: row.kind, status: row.status }, row.jobs);
    }
  });
  const oldestJobAge = new Gauge({
    name: "job_queue_oldest_age_seconds",
    help: "How long the oldest due, unclaimed job of each kind has waited (0 when none waits)",
    labelNames: ["kind"],
    registers: [registry],
    async collect() {
      const rows = await source()?.queue() ?? [];
      this.reset();
      for (const row of rows) if (row.status === "queued") this.set({ kind: row.kind }, row.oldestDueSeconds ?? 0);
    }
  });
  const jobOutcomes = new Counter({
    name: "job_outcomes_total",
    help: "Jobs run by this process, by kind and outcome (done, retry, dead, lost)",
    labelNames: ["kind", "outcome"],
    registers: [registry]
  });
  const webhookDeliveries = new Counter({
    name: "webhook_deliveries_total",
    help: "Webhook delivery attempts by outcome (delivered, retry: failed and due again, failed: given up)",
    labelNames: ["outcome"],
    registers: [registry]
  });
  const reportRenders = new Counter({
    name: "report_renders_total",
    help: "PDF report renders by outcome (completed, failed)",
    labelNames: ["outcome"],
    registers: [registry]
  });
  const reportRenderDuration = new Histogram({
    name: "report_render_duration_seconds",
    help: "Duration of PDF report renders (contents read, rendered, stored)",
    buckets: RENDER_BUCKETS,
    registers: [registry]
  });
  const creditsCharged = new Counter({
    name: "credits_charged_total",
    help: "Credits charged to tenants (every charge of the ledger)",
    registers: [registry]
  });
  const scoringPairs = new Counter({
    name: "scoring_pairs_total",
    help: "(tender, company) pairs scored; rate() of it is the scoring throughput",
    registers: [registry]
  });
  const ingestErrors = new Counter({
    name: "ingest_errors_total",
    help: "Failed polls of a notice source, by source",
    labelNames: ["source"],
    registers: [registry]
  });
  const ingestLag = new Gauge({
    name: "ingest_lag_seconds",
    help: "Seconds since the source's last successful poll (sources a worker polls; absent before the first)",
    labelNames: ["source"],
    registers: [registry],
    async collect() {
      const rows = await source()?.ingest() ?? [];
      this.reset();
      for (const row of rows)
        if (row.enabled && row.lagSeconds !== null) this.set({ source: row.source }, row.lagSeconds);
    }
  });
  const ingestFailing = new Gauge({
    name: "ingest_source_failing",
    help: "1 when the source's last poll failed (it is degraded), else 0",
    labelNames: ["source"],
    registers: [registry],
    async collect() {
      const rows = await source()?.ingest() ?? [];
      this.reset();
      for (const row of rows) if (row.enabled) this.set({ source: row.source }, row.failing ? 1 : 0);
    }
  });
  const pgPool = new Gauge({
    name: "pg_pool_connections",
    help: "The process's PostgreSQL pool: connections open (total), idle, and requests waiting for one",
    labelNames: ["state"],
    registers: [registry],
    collect() {
      const pool = source()?.pool();
      if (pool === void 0) return;
      this.set({ state: "total" }, pool.total);
      this.set({ state: "idle" }, pool.idle);
      this.set({ state: "waiting" }, pool.waiting);
    }
  });
  const redisErrors = new Counter({
    name: "redis_errors_total",
    help: "Errors of the process's Redis connection (connection lost, refused, timed out)",
    registers: [registry]
  });
  for (const outcome of ["delivered", "retry", "failed", "lost"]) webhookDeliveries.inc({ outcome }, 0);
  for (const outcome of ["completed", "failed"]) reportRenders.inc({ outcome }, 0);
  for (const source2 of ["ted", "seap"]) ingestErrors.inc({ source: source2 }, 0);
  const requestChildren = /* @__PURE__ */ new Map();
  const observeRequest = (route, method, status, seconds) => {
    const key = `${method} ${status} ${route}`;
    let child = requestChildren.get(key);
    if (child === void 0) {
      child = httpRequestDuration.labels({
        http_route: route,
        http_request_method: method,
        http_response_status_code: String(status)
      });
      requestChildren.set(key, child);
    }
    child.observe(seconds);
  };
  return {
    registry,
    /** Registers what scrapes read from the database; returns its removal. */
    addScrapeSource: (added) => {
      sources.add(added);
      return () => {
        sources.delete(added);
      };
    },
    observeRequest,
    jobOutcomes,
    webhookDeliveries,
    reportRenders,
    reportRenderDuration,
    creditsCharged,
    scoringPairs,
    ingestErrors,
    redisErrors,
    /** The gauges a scrape fills from the ScrapeSource (registered by their construction). */
    scraped: { jobsByStatus, oldestJobAge, ingestLag, ingestFailing, pgPool }
  };
};
var processMetrics;
var Metrics = class extends Context11.Reference()("Metrics", {
  defaultValue: () => {
    processMetrics ??= makeMetrics();
    return processMetrics;
  }
}) {
};

// src/infra/billing/CreditStatements.ts
var CreditStatements = {
  /**
   * A charge in one statement (one implicit transaction): the conditional update of the period's
   * counter and its ledger row. It finds nothing when the period is not open yet or the balance is
   * below the least that allows the charge (`cost` for an exact charge, 1 for up-to).
   */
  creditCharge: statement(
    "tss_credit_charge",
    `
  WITH charged AS (
    UPDATE credit_periods cp
    SET remaining = cp.remaining - least(cp.remaining, $3::int)
    FROM (SELECT remaining AS before FROM credit_periods WHERE tenant_id = $1 AND period_start = $2 FOR UPDATE) old
    WHERE cp.tenant_id = $1 AND cp.period_start = $2 AND cp.remaining >= $4::int
    RETURNING old.before - cp.remaining AS charged, cp.remaining
  ), entry AS (
    INSERT INTO credit_ledger (tenant_id, period_start, delta, kind, reason, balance_after)
    SELECT $1, $2, -charged, 'charge', $5, remaining FROM charged
  )
  SELECT charged, remaining FROM charged`
  )
};

// src/infra/billing/CreditLedger.ts
var RemainingRow = Schema15.Struct({ remaining: Schema15.Number });
var PeriodKey = Schema15.Struct({ tenantId: Schema15.String, periodStart: Schema15.String });
var CreditLedger = class extends Context12.Tag("CreditLedger")() {
};
var CreditLedgerLive = Layer12.effect(
  CreditLedger,
  Effect21.gen(function* () {
    const sql = yield* SqlClient12.SqlClient;
    const runPrepared = yield* makeRunPrepared;
    const planOf = SqlSchema9.findOne({
      Request: Schema15.String,
      Result: Schema15.Struct({ plan: Plan }),
      execute: (tenantId) => sql`SELECT plan FROM tenants WHERE id = ${tenantId}`
    });
    const remainingOf = SqlSchema9.findOne({
      Request: PeriodKey,
      Result: RemainingRow,
      execute: (key) => sql`
        SELECT remaining FROM credit_periods WHERE tenant_id = ${key.tenantId} AND period_start = ${key.periodStart}`
    });
    const lockRemaining = SqlSchema9.single({
      Request: PeriodKey,
      Result: RemainingRow,
      execute: (key) => sql`
        SELECT remaining FROM credit_periods
        WHERE tenant_id = ${key.tenantId} AND period_start = ${key.periodStart} FOR UPDATE`
    });
    const takeHold = SqlSchema9.findOne({
      Request: Schema15.Struct({ ...PeriodKey.fields, amount: Schema15.Number }),
      Result: RemainingRow,
      execute: (input) => sql`
        UPDATE credit_periods SET remaining = remaining - ${input.amount}
        WHERE tenant_id = ${input.tenantId} AND period_start = ${input.periodStart} AND remaining >= ${input.amount}
        RETURNING remaining`
    });
    const giveBack = SqlSchema9.findOne({
      Request: Schema15.Struct({ ...PeriodKey.fields, amount: Schema15.Number }),
      Result: RemainingRow,
      execute: (input) => sql`
        UPDATE credit_periods SET remaining = remaining + ${input.amount}
        WHERE tenant_id = ${input.tenantId} AND period_start = ${input.periodStart}
        RETURNING remaining`
    });
    const openPeriod = (tenantId) => Effect21.gen(function* () {
      const period = creditPeriodAt(yield* Clock2.currentTimeMillis);
      const tenant = yield* planOf(tenantId);
      if (Option11.isNone(tenant)) return yield* new TenantNotFound({ tenantId });
      const granted = planRules[tenant.value.plan].monthlyCredits;
      const inserted = yield* sql`
          INSERT INTO credit_periods (tenant_id, period_start, period_ends_at, granted, remaining)
          VALUES (${tenantId}, ${period.start}, ${period.endsAt}, ${granted}, ${granted})
          ON CONFLICT (tenant_id, period_start) DO NOTHING
          RETURNING tenant_id`;
      if (inserted.length > 0) {
        yield* sql`
            INSERT INTO credit_ledger (tenant_id, period_start, delta, kind, reason, balance_after)
            VALUES (${tenantId}, ${period.start}, ${granted}, 'grant', 'monthly grant', ${granted})`;
      }
      return period;
    });
    const balanceOf = (tenantId, period) => remainingOf({ tenantId, periodStart: period.start }).pipe(
      Effect21.map((row) => ({
        remaining: Option11.match(row, { onNone: () => 0, onSome: ({ remaining }) => remaining }),
        periodEndsAt: period.endsAtText
      }))
    );
    const balance = (tenantId) => sql.withTransaction(Effect21.flatMap(openPeriod(tenantId), (period) => balanceOf(tenantId, period)));
    const chargeParams = (input, period) => [input.tenantId, period.start, input.cost, input.mode === "exact" ? input.cost : 1, input.reason];
    const chargeOpenPeriod = (input) => Effect21.gen(function* () {
      const period = creditPeriodAt(yield* Clock2.currentTimeMillis);
      const [row] = yield* runPrepared(CreditStatements.creditCharge, chargeParams(input, period));
      return Option11.map(Option11.fromNullable(row), (charged) => ({ ...charged, periodEndsAt: period.endsAtText }));
    });
    const chargeInTransaction = (input) => sql.withTransaction(
      Effect21.gen(function* () {
        const period = yield* openPeriod(input.tenantId);
        if (input.cost <= 0) return { charged: 0, ...yield* balanceOf(input.tenantId, period) };
        const [row] = yield* runOnSqlClient(sql, CreditStatements.creditCharge, chargeParams(input, period));
        if (!row) {
          const { remaining } = yield* balanceOf(input.tenantId, period);
          return yield* new InsufficientCredits({
            remaining,
            required: input.cost,
            periodEndsAt: period.endsAtText
          });
        }
        return { charged: row.charged, remaining: row.remaining, periodEndsAt: period.endsAtText };
      })
    ).pipe(Effect21.catchTags({ SqlError: Effect21.die, ParseError: Effect21.die }));
    const metrics = yield* Metrics;
    const charge = (input) => (input.cost <= 0 ? chargeInTransaction(input) : Effect21.flatMap(
      chargeOpenPeriod(input),
      Option11.match({ onSome: Effect21.succeed, onNone: () => chargeInTransaction(input) })
    )).pipe(Effect21.tap((charged) => metrics.creditsCharged.inc(charged.charged)));
    const set = (input) => sql.withTransaction(
      Effect21.gen(function* () {
        const period = yield* openPeriod(input.tenantId);
        const old = yield* lockRemaining({ tenantId: input.tenantId, periodStart: period.start });
        yield* sql`
            UPDATE credit_periods SET remaining = ${input.remaining}
            WHERE tenant_id = ${input.tenantId} AND period_start = ${period.start}`;
        yield* sql`
            INSERT INTO credit_ledger (tenant_id, period_start, delta, kind, reason, balance_after)
            VALUES (${input.tenantId}, ${period.start}, ${input.remaining - old.remaining}, 'adjustment',
                    ${input.reason}, ${input.remaining})`;
        return { remaining: input.remaining, periodEndsAt: period.endsAtText };
      })
    ).pipe(Effect21.catchTags({ SqlError: Effect21.die, ParseError: Effect21.die, NoSuchElementException: Effect21.die }));
    const hold = (input) => Effect21.gen(function* () {
      const period = yield* openPeriod(input.tenantId);
      const at = new Date(yield* Clock2.currentTimeMillis);
      const taken = yield* takeHold({ tenantId: input.tenantId, periodStart: period.start, amount: input.amount });
      if (Option11.isNone(taken)) {
        const { remaining } = yield* balanceOf(input.tenantId, period);
        return yield* new InsufficientCredits({ remaining, required: input.amount, periodEndsAt: period.endsAtText });
      }
      const held = taken.value;
      yield* sql`
          INSERT INTO credit_ledger (tenant_id, period_start, delta, kind, reason, balance_after, created_at)
          VALUES (${input.tenantId}, ${period.start}, ${-input.amount}, 'hold', ${input.reason}, ${held.remaining}, ${at})`;
      return { remaining: held.remaining, periodEndsAt: period.endsAtText, periodStart: period.start };
    }).pipe(Effect21.catchTags({ SqlError: Effect21.die, ParseError: Effect21.die }));
    const settleHold = ({ tenantId, periodStart, amount, outcome }) => Effect21.gen(function* () {
      if (amount <= 0) return;
      const charge2 = outcome._tag === "charge";
      const updated = yield* giveBack({ tenantId, periodStart, amount: charge2 ? 0 : amount });
      if (Option11.isNone(updated)) return;
      const period = updated.value;
      const at = new Date(yield* Clock2.currentTimeMillis);
      if (outcome._tag === "charge") {
        metrics.creditsCharged.inc(amount);
        yield* sql`
            INSERT INTO credit_ledger (tenant_id, period_start, delta, kind, reason, balance_after, created_at) VALUES
              (${tenantId}, ${periodStart}, ${amount}, 'release', ${outcome.releaseReason}, ${period.remaining + amount}, ${at}),
              (${tenantId}, ${periodStart}, ${-amount}, 'charge', ${outcome.chargeReason}, ${period.remaining}, ${at})`;
      } else {
        yield* sql`
            INSERT INTO credit_ledger (tenant_id, period_start, delta, kind, reason, balance_after, created_at)
            VALUES (${tenantId}, ${periodStart}, ${amount}, 'release', ${outcome.releaseReason}, ${period.remaining}, ${at})`;
      }
    }).pipe(Effect21.orDie);
    return {
      balance: (tenantId) => balance(tenantId).pipe(Effect21.catchTags({ SqlError: Effect21.die, ParseError: Effect21.die })),
      charge,
      hold,
      settleHold,
      set
    };
  })
);

// src/infra/billing/CreditUsage.ts
import { SqlClient as SqlClient13, SqlSchema as SqlSchema10 } from "@effect/sql";
import { Clock as Clock3, Context as Context13, Effect as Effect22, Layer as Layer13, Option as Option12, Schema as Schema16 } from "effect";
var CreditUsage = class extends Context13.Tag("CreditUsage")() {
};
var CreditUsageLive = Layer13.effect(
  CreditUsage,
  Effect22.gen(function* () {
    const sql = yield* SqlClient13.SqlClient;
    const ledger = yield* CreditLedger;
    const grantedIn = SqlSchema10.findOne({
      Request: Schema16.Struct({ tenantId: Schema16.String, periodStart: Schema16.String }),
      Result: Schema16.Struct({ granted: Schema16.Number }),
      execute: (input) => sql`
        SELECT granted FROM credit_periods WHERE tenant_id = ${input.tenantId} AND period_start = ${input.periodStart}`
    });
    const dailyUse = SqlSchema10.findAll({
      Request: Schema16.Struct({ tenantId: Schema16.String, periodStart: Schema16.String, today: Schema16.String }),
      Result: Schema16.Struct({ date: Schema16.String, used: Schema16.Number }),
      execute: (input) => sql`
        SELECT to_char(d, 'YYYY-MM-DD') AS date, coalesce(u.used, 0)::int AS used
        FROM generate_series(${input.periodStart}::date, ${input.today}::date, interval '1 day') AS d
        LEFT JOIN (
          SELECT (created_at AT TIME ZONE 'Europe/Bucharest')::date AS day, sum(-delta) AS used
          FROM credit_ledger
          WHERE tenant_id = ${input.tenantId} AND period_start = ${input.periodStart} AND kind = 'charge'
          GROUP BY 1
        ) u ON u.day = d::date
        ORDER BY d`
    });
    const summary = (tenantId) => Effect22.gen(function* () {
      const balance = yield* ledger.balance(tenantId);
      const now2 = yield* Clock3.currentTimeMillis;
      const period = creditPeriodAt(now2);
      const today = bucharestDate(now2);
      const granted = yield* grantedIn({ tenantId, periodStart: period.start });
      const daily = yield* dailyUse({ tenantId, periodStart: period.start, today });
      return {
        granted: Option12.match(granted, { onNone: () => 0, onSome: (row) => row.granted }),
        remaining: balance.remaining,
        used: daily.reduce((sum, day) => sum + day.used, 0),
        periodStart: period.start,
        periodEndsAt: balance.periodEndsAt,
        daily
      };
    }).pipe(Effect22.catchTags({ SqlError: Effect22.die, ParseError: Effect22.die }));
    return { summary };
  })
);

// src/infra/digest/DigestSettingsRepo.ts
import { SqlClient as SqlClient14, SqlSchema as SqlSchema11 } from "@effect/sql";
import { Context as Context14, Effect as Effect23, Layer as Layer14, Schema as Schema17 } from "effect";
var DigestSettingsRepo = class extends Context14.Tag("DigestSettingsRepo")() {
};
var SettingsRow = Schema17.Struct({ digest_enabled: Schema17.Boolean, digest_hour: Schema17.Number });
var toSettings = (row) => ({
  enabled: row.digest_enabled,
  hour: row.digest_hour
});
var DigestSettingsRepoLive = Layer14.effect(
  DigestSettingsRepo,
  Effect23.gen(function* () {
    const sql = yield* SqlClient14.SqlClient;
    const find = SqlSchema11.single({
      Request: Schema17.String,
      Result: SettingsRow,
      execute: (userId) => sql`SELECT digest_enabled, digest_hour FROM users WHERE id = ${userId}`
    });
    const update = SqlSchema11.single({
      Request: Schema17.Struct({ userId: Schema17.String, enabled: Schema17.Boolean, hour: Schema17.NullOr(Schema17.Number) }),
      Result: SettingsRow,
      execute: (input) => sql`
        UPDATE users SET digest_enabled = ${input.enabled}, digest_hour = coalesce(${input.hour}::smallint, digest_hour)
        WHERE id = ${input.userId}
        RETURNING digest_enabled, digest_hour`
    });
    return {
      get: (userId) => find(userId).pipe(Effect23.map(toSettings), Effect23.orDie),
      set: (userId, change) => update({ userId, enabled: change.enabled, hour: change.hour ?? null }).pipe(
        Effect23.map(toSettings),
        Effect23.orDie
      )
    };
  })
);

// src/infra/ingest/IngestState.ts
import { SqlClient as SqlClient15, SqlSchema as SqlSchema12 } from "@effect/sql";
import { Context as Context15, Effect as Effect24, Layer as Layer15, Option as Option13, Schema as Schema18 } from "effect";

// src/domain/ingest/SourceFailure.ts
import { Data as Data2, Duration as Duration5, Schedule as Schedule3 } from "effect";
var SOURCE_NAMES = ["ted", "seap"];
var SourceFailure = class extends Data2.TaggedError("SourceFailure") {
};
var LONGEST_RETRY_AFTER = Duration5.minutes(10);
var NOTICE_RETRY = { maxAttempts: 8, retry: Schedule3.exponential("1 minute", 2) };
var LONGEST_BACKOFF = Duration5.minutes(30);

// src/infra/ingest/IngestState.ts
var SourceStateRow = Schema18.Struct({
  name: Schema18.Literal(...SOURCE_NAMES),
  enabled: Schema18.Boolean,
  watermark: Schema18.String,
  cursor: Schema18.NullOr(Schema18.Unknown),
  last_success_at: Schema18.NullOr(Schema18.DateFromSelf),
  last_error_at: Schema18.NullOr(Schema18.DateFromSelf),
  last_error: Schema18.NullOr(Schema18.String),
  ingested: Schema18.NumberFromString,
  skipped: Schema18.NumberFromString
});
var IngestState = class extends Context15.Tag("IngestState")() {
};
var decodeState = Schema18.decodeUnknown(SourceStateRow);
var IngestStateLive = Layer15.effect(
  IngestState,
  Effect24.gen(function* () {
    const sql = yield* SqlClient15.SqlClient;
    const columns = sql`name, enabled, watermark::text AS watermark, cursor, last_success_at, last_error_at,
                        last_error, ingested::text AS ingested, skipped::text AS skipped`;
    const stateOf = (source) => sql`SELECT ${columns} FROM ingest_sources WHERE name = ${source}`.pipe(
      Effect24.flatMap((rows) => decodeState(rows[0])),
      Effect24.orDie
    );
    const open = (source, watermark, enabled) => sql`INSERT INTO ingest_sources (name, watermark, enabled) VALUES (${source}, ${watermark}::date, ${enabled})
          ON CONFLICT (name) DO UPDATE SET enabled = EXCLUDED.enabled`.pipe(
      Effect24.zipRight(stateOf(source)),
      Effect24.orDie
    );
    const saveCursor = (source, cursor) => Effect24.flatMap(
      clockNow,
      (now2) => sql`UPDATE ingest_sources SET cursor = ${JSON.stringify(cursor)}::jsonb, updated_at = ${now2}
            WHERE name = ${source}`.pipe(Effect24.asVoid, Effect24.orDie)
    );
    const finishPoll = (source, watermark) => Effect24.flatMap(
      clockNow,
      (now2) => sql`UPDATE ingest_sources
            SET watermark = greatest(watermark, ${watermark}::date), cursor = NULL, last_success_at = ${now2},
                updated_at = ${now2}
            WHERE name = ${source}`.pipe(Effect24.asVoid, Effect24.orDie)
    );
    const recordError = (source, message) => Effect24.flatMap(
      clockNow,
      (now2) => sql`
          INSERT INTO ingest_sources (name, watermark, last_error_at, last_error, updated_at)
          VALUES (${source}, ${bucharestDate(now2.getTime())}::date, ${now2}, ${message.slice(0, 500)}, ${now2})
          ON CONFLICT (name) DO UPDATE SET
            last_error_at = EXCLUDED.last_error_at, last_error = EXCLUDED.last_error, updated_at = EXCLUDED.updated_at`.pipe(
        Effect24.asVoid,
        Effect24.orDie
      )
    );
    const count = (source, counts) => counts.ingested === 0 && counts.skipped === 0 ? Effect24.void : sql`UPDATE ingest_sources SET ingested = ingested + ${counts.ingested}, skipped = skipped + ${counts.skipped}
              WHERE name = ${source}`.pipe(Effect24.asVoid, Effect24.orDie);
    const stored = SqlSchema12.findAll({
      Request: Schema18.Void,
      Result: SourceStateRow,
      execute: () => sql`SELECT ${columns} FROM ingest_sources`
    });
    const all = Effect24.gen(function* () {
      const rows = yield* stored().pipe(Effect24.orDie);
      const today = bucharestDate((yield* clockNow).getTime());
      return SOURCE_NAMES.map(
        (name) => rows.find((row) => row.name === name) ?? {
          name,
          enabled: false,
          watermark: today,
          cursor: null,
          last_success_at: null,
          last_error_at: null,
          last_error: null,
          ingested: 0,
          skipped: 0
        }
      );
    });
    const seenVersions = (source, refs) => refs.length === 0 ? Effect24.succeed(/* @__PURE__ */ new Map()) : sql`
            SELECT notice_ref, version FROM ingested_notices
            WHERE source = ${source} AND notice_ref = ANY(${refs}::text[])`.pipe(
      Effect24.map((rows) => new Map(rows.map((row) => [row.notice_ref, row.version]))),
      Effect24.orDie
    );
    const markSeen = (notices) => notices.length === 0 ? Effect24.void : Effect24.flatMap(
      clockNow,
      (now2) => sql`
              INSERT INTO ingested_notices (source, notice_ref, version, tender_id, skip_reason, ted_ref, seen_at)
              SELECT * FROM unnest(${notices.map((n) => n.source)}::text[], ${notices.map((n) => n.ref)}::text[],
                                   ${notices.map((n) => n.version)}::int[], ${notices.map((n) => n.tenderId)}::uuid[],
                                   ${notices.map((n) => n.skipReason)}::text[], ${notices.map((n) => n.tedRef)}::text[],
                                   ${notices.map(() => now2.toISOString())}::timestamptz[])
              ON CONFLICT (source, notice_ref) DO UPDATE SET
                version = EXCLUDED.version, tender_id = coalesce(EXCLUDED.tender_id, ingested_notices.tender_id),
                skip_reason = EXCLUDED.skip_reason, ted_ref = coalesce(EXCLUDED.ted_ref, ingested_notices.ted_ref),
                seen_at = EXCLUDED.seen_at`.pipe(Effect24.asVoid, Effect24.orDie)
    );
    const tenderOfProcedure = (tedRef, notSource) => sql`
        SELECT tender_id FROM ingested_notices
        WHERE ted_ref = ${tedRef} AND source <> ${notSource} AND tender_id IS NOT NULL
        ORDER BY seen_at LIMIT 1`.pipe(
      Effect24.map((rows) => Option13.fromNullable(rows[0]?.tender_id)),
      Effect24.orDie
    );
    return { open, saveCursor, finishPoll, recordError, count, all, seenVersions, markSeen, tenderOfProcedure };
  })
);

// src/infra/mail/EmailOutbox.ts
import { SqlClient as SqlClient16, SqlSchema as SqlSchema13 } from "@effect/sql";
import { Context as Context16, Effect as Effect25, Layer as Layer16, Option as Option14, Schema as Schema19 } from "effect";
var SendEmail = jobKind("mail.send", Schema19.Struct({ emailId: Schema19.String }), {
  maxAttempts: 5,
  retry: MailRetrySchedule
});
var PendingRow = Schema19.Struct({
  to_address: Schema19.String,
  subject: Schema19.String,
  body_text: Schema19.String,
  body_html: Schema19.NullOr(Schema19.String)
});
var EmailOutbox = class extends Context16.Tag("EmailOutbox")() {
};
var EmailOutboxLive = Layer16.effect(
  EmailOutbox,
  Effect25.gen(function* () {
    const sql = yield* SqlClient16.SqlClient;
    const queue = yield* JobQueue;
    const insertForTenant = SqlSchema13.findAll({
      Request: Schema19.Struct({
        tenantId: Schema19.String,
        subject: Schema19.String,
        bodyText: Schema19.String,
        now: Schema19.DateFromSelf
      }),
      Result: Schema19.Struct({ id: Schema19.String }),
      execute: (input) => sql`
        INSERT INTO email_outbox (tenant_id, to_address, subject, body_text, created_at)
        SELECT tenant_id, email, ${input.subject}, ${input.bodyText}, ${input.now}
        FROM users WHERE tenant_id = ${input.tenantId}
        ORDER BY email
        RETURNING id::text`
    });
    const insertForUser = SqlSchema13.single({
      Request: Schema19.Struct({
        userId: Schema19.String,
        subject: Schema19.String,
        bodyText: Schema19.String,
        bodyHtml: Schema19.NullOr(Schema19.String),
        now: Schema19.DateFromSelf
      }),
      Result: Schema19.Struct({ id: Schema19.String }),
      execute: (input) => sql`
        INSERT INTO email_outbox (tenant_id, to_address, subject, body_text, body_html, created_at)
        SELECT tenant_id, email, ${input.subject}, ${input.bodyText}, ${input.bodyHtml}, ${input.now}
        FROM users WHERE id = ${input.userId}
        RETURNING id::text`
    });
    const findPending = SqlSchema13.findOne({
      Request: Schema19.String,
      Result: PendingRow,
      execute: (emailId) => sql`SELECT to_address, subject, body_text, body_html FROM email_outbox WHERE id = ${emailId} AND status = 'pending'`
    });
    return {
      enqueueForTenant: (tenantId, { subject, bodyText }) => Effect25.gen(function* () {
        const now2 = yield* clockNow;
        const rows = yield* insertForTenant({ tenantId, subject, bodyText, now: now2 });
        return yield* queue.enqueueAll(
          SendEmail,
          rows.map((row) => ({ payload: { emailId: row.id } }))
        );
      }).pipe(Effect25.orDie),
      enqueueForUser: (userId, { subject, bodyText, bodyHtml }) => Effect25.gen(function* () {
        const now2 = yield* clockNow;
        const row = yield* insertForUser({ userId, subject, bodyText, bodyHtml: bodyHtml ?? null, now: now2 });
        yield* queue.enqueue(SendEmail, { emailId: row.id });
        return row.id;
      }).pipe(Effect25.orDie),
      pending: (emailId) => findPending(emailId).pipe(
        Effect25.map(
          Option14.map((row) => ({
            toAddress: row.to_address,
            subject: row.subject,
            bodyText: row.body_text,
            bodyHtml: row.body_html
          }))
        ),
        Effect25.orDie
      ),
      recordSent: (job, emailId, outcome) => Effect25.gen(function* () {
        const now2 = yield* clockNow;
        const done = yield* queue.settlement(job, { _tag: "done" });
        yield* sql`
            WITH held AS (${done})
            UPDATE email_outbox SET status = ${outcome}, sent_at = ${now2}
            WHERE id = ${emailId} AND status = 'pending'`;
      }).pipe(Effect25.orDie),
      recordFailed: (emailId) => sql`UPDATE email_outbox SET status = 'failed' WHERE id = ${emailId} AND status = 'pending'`.pipe(
        Effect25.asVoid,
        Effect25.orDie
      )
    };
  })
).pipe(Layer16.provide(JobQueueLive));

// src/infra/scoring/AppTenderReads.ts
import { SqlClient as SqlClient17, SqlSchema as SqlSchema14 } from "@effect/sql";
import { Context as Context17, Effect as Effect26, Layer as Layer17, Option as Option15, Schema as Schema20 } from "effect";

// src/infra/db/TimestampText.ts
var isoMillisText = (column) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
var isoMicrosText = (column) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

// src/infra/scoring/AppTenderReads.ts
var cpvPrefix = (code) => code.slice(0, 8).replace(/0+$/, "").padEnd(2, "0");
var FOLD_FROM = "\u0103\xE2\xEE\u0219\u021B\u015F\u0163\u0102\xC2\xCE\u0218\u021A\u015E\u0162\xE1\xE0\xE4\xE9\xE8\xEB\xEA\xED\xEC\xEF\xF3\xF2\xF6\xF4\xFA\xF9\xFC\xFB\xE7\xF1\xC1\xC0\xC4\xC9\xC8\xCB\xCA\xCD\xCC\xCF\xD3\xD2\xD6\xD4\xDA\xD9\xDC\xDB\xC7\xD1";
var FOLD_TO = "aaiststAAISTSTaaaeeeeiiioooouuuucnAAAEEEEIIIOOOOUUUUCN";
var likeEscape = (word) => word.replace(/[\\%_]/g, (c) => `\\${c}`);
var AppTenderRow = Schema20.Struct({
  id: Schema20.String,
  title: Schema20.String,
  score: Schema20.Number,
  verdict: Verdict,
  cpv_codes: Schema20.Array(Schema20.String),
  authority: Schema20.String,
  authority_county: Schema20.NullOr(Schema20.String),
  deadline: Schema20.NullOr(Schema20.DateFromSelf),
  estimated_value_ron: Schema20.NullOr(Schema20.Number),
  estimated_value_eur: Schema20.NullOr(Schema20.Number),
  publish_date: Schema20.DateFromSelf,
  source_url: Schema20.String,
  /** The exact sort position (microseconds) for cursors. */
  publish_key: Schema20.String,
  /** The deadline order's position: the deadline in microseconds, `infinity` when there is none. */
  deadline_key: Schema20.String
});
var StoredFactorColumns = Schema20.Struct({
  score_semantic: Schema20.Number,
  score_keyword: Schema20.Number,
  score_cpv: Schema20.Number,
  score_value_fit: Schema20.Number,
  score_historical: Schema20.Number,
  cpv_type: Schema20.Literal("primary", "additional", "none"),
  model_version: Schema20.String
});
var AppTenderDetailRow = Schema20.Struct({
  ...AppTenderRow.fields,
  ...StoredFactorColumns.fields,
  description: Schema20.String,
  /** A `json` array, parsed by the driver. */
  cpv_labels: Schema20.Array(Schema20.Struct({ code: Schema20.String, label_ro: Schema20.String, label_en: Schema20.String })),
  overall_confidence: Schema20.Number,
  scored_at: Schema20.DateFromSelf
});
var ListPositionSchema = Schema20.Struct({
  score: Schema20.Number,
  publishKey: Schema20.String,
  tenderId: Schema20.String
});
var PageRequest = Schema20.Struct({
  companyId: Schema20.String,
  minScore: Schema20.Number,
  bound: Schema20.String,
  status: Schema20.Literal("all", "open", "closed"),
  now: Schema20.DateFromSelf,
  filters: Schema20.Struct({
    words: Schema20.Array(Schema20.String),
    county: Schema20.OptionFromSelf(Schema20.String),
    cpv: Schema20.OptionFromSelf(Schema20.String),
    deadlineFrom: Schema20.OptionFromSelf(Schema20.String),
    deadlineTo: Schema20.OptionFromSelf(Schema20.String)
  }),
  sort: Schema20.Literal("score", "deadline", "value"),
  after: Schema20.OptionFromSelf(
    Schema20.Union(
      Schema20.Struct({ sort: Schema20.Literal("score"), ...ListPositionSchema.fields }),
      Schema20.Struct({ sort: Schema20.Literal("deadline"), deadlineKey: Schema20.String, tenderId: Schema20.String }),
      Schema20.Struct({ sort: Schema20.Literal("value"), value: Schema20.Number, tenderId: Schema20.String })
    )
  ),
  take: Schema20.Number
});
var AppTenderReads = class extends Context17.Tag("AppTenderReads")() {
};
var AppTenderReadsLive = Layer17.effect(
  AppTenderReads,
  Effect26.gen(function* () {
    const sql = yield* SqlClient17.SqlClient;
    const fraction2 = (column) => sql.literal(`round(s.${column}::numeric, 4)::float8 AS ${column}`);
    const tenderColumns = sql.literal(`
      t.id, t.title, s.overall_score AS score, s.verdict,
      array_prepend(rtrim(t.main_cpv), t.additional_cpvs::text[]) AS cpv_codes,
      a.name AS authority, a.county AS authority_county, t.deadline,
      t.estimated_value_ron::float8 AS estimated_value_ron, t.estimated_value_eur::float8 AS estimated_value_eur,
      s.tender_publish_date AS publish_date, t.source_url,
      ${isoMicrosText("s.tender_publish_date")} AS publish_key,
      CASE WHEN t.deadline IS NULL THEN 'infinity' ELSE ${isoMicrosText("t.deadline")} END AS deadline_key`);
    const pageHead = SqlSchema14.single({
      Request: Schema20.Struct({
        tenantId: Schema20.String,
        companyId: Schema20.String,
        bound: Schema20.NullOr(Schema20.String)
      }),
      Result: Schema20.Struct({ owned: Schema20.Boolean, bound: Schema20.String }),
      execute: (input) => sql`
        SELECT EXISTS (SELECT 1 FROM companies WHERE id = ${input.companyId} AND tenant_id = ${input.tenantId})
                 AS owned,
               coalesce(${input.bound}, pg_current_snapshot()::text) AS bound`
    });
    const scoresOf = (input) => {
      const snapshot = sql`${input.bound}::pg_snapshot`;
      const within = sql`company_id = ${input.companyId} AND overall_score >= ${input.minScore}
        AND pg_visible_in_snapshot(written_xid, ${snapshot})`;
      const columns = sql.literal("company_id, tender_id, overall_score, verdict, tender_publish_date");
      return sql`(
        (SELECT ${columns} FROM tender_scores WHERE ${within})
        UNION ALL
        (SELECT ${columns} FROM tender_score_history
         WHERE ${within} AND NOT pg_visible_in_snapshot(superseded_xid, ${snapshot}))
      )`;
    };
    const folded = (column) => sql.literal(`lower(translate(${column}, '${FOLD_FROM}', '${FOLD_TO}'))`);
    const bucharestDayStart = (day, plusDays) => sql`(${day}::date + ${plusDays}::int)::timestamp AT TIME ZONE 'Europe/Bucharest'`;
    const filtersOf = (input) => {
      const { filters } = input;
      const parts = [
        input.status === "open" ? sql`AND (t.deadline IS NULL OR t.deadline > ${input.now}) AND t.cancelled_at IS NULL` : input.status === "closed" ? sql`AND (t.deadline <= ${input.now} OR t.cancelled_at IS NOT NULL)` : sql``,
        ...filters.words.map(
          (word) => sql`AND (${folded("t.title")} LIKE ${`%${likeEscape(word)}%`} OR ${folded("a.name")} LIKE ${`%${likeEscape(word)}%`})`
        ),
        Option15.match(filters.county, {
          onNone: () => sql``,
          onSome: (county) => sql`AND ${folded("a.county")} = ${foldForMatching(county)}`
        }),
        Option15.match(filters.cpv, {
          onNone: () => sql``,
          onSome: (code) => sql`AND EXISTS (SELECT 1 FROM unnest(array_prepend(t.main_cpv, t.additional_cpvs)) AS c(code)
                            WHERE c.code LIKE ${`${cpvPrefix(code)}%`})`
        }),
        Option15.match(filters.deadlineFrom, {
          onNone: () => sql``,
          onSome: (day) => sql`AND t.deadline >= ${bucharestDayStart(day, 0)}`
        }),
        Option15.match(filters.deadlineTo, {
          onNone: () => sql``,
          onSome: (day) => sql`AND t.deadline < ${bucharestDayStart(day, 1)}`
        })
      ];
      return sql.join(" ", false)(parts);
    };
    const deadlineOrder = sql.literal("coalesce(t.deadline, 'infinity'::timestamptz)");
    const valueOrder = sql.literal("coalesce(t.estimated_value_ron::float8, -1)");
    const orderOf = (input) => input.sort === "deadline" ? sql`ORDER BY ${deadlineOrder}, s.tender_id` : input.sort === "value" ? sql`ORDER BY ${valueOrder} DESC, s.tender_id` : sql`ORDER BY s.overall_score DESC, s.tender_publish_date DESC, s.tender_id`;
    const afterOf = (input) => Option15.match(input.after, {
      onNone: () => sql``,
      onSome: (p) => p.sort === "deadline" ? sql`AND (${deadlineOrder}, s.tender_id) > (${p.deadlineKey}::timestamptz, ${p.tenderId}::uuid)` : p.sort === "value" ? sql`AND (${valueOrder} < ${p.value}::float8
                         OR (${valueOrder} = ${p.value}::float8 AND s.tender_id > ${p.tenderId}::uuid))` : sql`
            AND s.overall_score <= ${p.score}
            AND (s.overall_score < ${p.score} OR s.tender_publish_date < ${p.publishKey}::timestamptz
                 OR (s.tender_publish_date = ${p.publishKey}::timestamptz AND s.tender_id > ${p.tenderId}::uuid))`
    });
    const pageTotal = SqlSchema14.single({
      Request: PageRequest,
      Result: Schema20.Struct({ total: Schema20.Number }),
      execute: (input) => sql`
        SELECT count(*)::int AS total FROM ${scoresOf(input)} s
        JOIN tenders t ON t.id = s.tender_id
        JOIN contracting_authorities a ON a.id = t.authority_id
        WHERE true ${filtersOf(input)}`
    });
    const pageRows = SqlSchema14.findAll({
      Request: PageRequest,
      Result: AppTenderRow,
      execute: (input) => sql`
        SELECT ${tenderColumns}
        FROM ${scoresOf(input)} s
        JOIN tenders t ON t.id = s.tender_id
        JOIN contracting_authorities a ON a.id = t.authority_id
        WHERE true ${filtersOf(input)} ${afterOf(input)}
        ${orderOf(input)}
        LIMIT ${input.take}`
    });
    const detailRow = SqlSchema14.findOne({
      Request: Schema20.Struct({ tenantId: Schema20.String, companyId: Schema20.String, tenderId: Schema20.String }),
      Result: AppTenderDetailRow,
      execute: (input) => sql`
        SELECT ${tenderColumns}, t.description,
               round(s.overall_confidence::numeric, 2)::float8 AS overall_confidence,
               ${fraction2("score_semantic")}, ${fraction2("score_keyword")}, ${fraction2("score_cpv")},
               ${fraction2("score_value_fit")}, ${fraction2("score_historical")}, s.cpv_type,
               s.model_version, s.scored_at,
               (SELECT coalesce(json_agg(json_build_object('code', rtrim(c.code_full), 'label_ro', c.label_ro,
                                                           'label_en', c.label_en) ORDER BY x.n), '[]')
                FROM unnest(array_prepend(t.main_cpv, t.additional_cpvs)) WITH ORDINALITY AS x(code, n)
                JOIN cpv_codes c ON c.code_full = x.code) AS cpv_labels
        FROM tender_scores s
        JOIN companies co ON co.id = s.company_id AND co.tenant_id = ${input.tenantId}
        JOIN tenders t ON t.id = s.tender_id
        JOIN contracting_authorities a ON a.id = t.authority_id
        WHERE s.company_id = ${input.companyId} AND s.tender_id = ${input.tenderId}`
    });
    const listPage = (input) => Effect26.gen(function* () {
      const head = yield* pageHead({
        tenantId: input.tenantId,
        companyId: input.companyId,
        bound: Option15.getOrNull(input.bound)
      });
      if (!head.owned) return { owned: false, bound: head.bound, total: 0, rows: [] };
      const page = { ...input, bound: head.bound };
      const { total } = yield* pageTotal(page);
      const rows = yield* pageRows(page);
      return { owned: true, bound: head.bound, total, rows };
    }).pipe(Effect26.orDie);
    const detail = (input) => detailRow(input).pipe(Effect26.orDie);
    return { listPage, detail };
  })
);

// src/infra/scoring/MatchSink.ts
import { Context as Context18 } from "effect";
var MatchSink = class extends Context18.Tag("MatchSink")() {
};

// src/infra/scoring/ScoredTendersRepo.ts
import { SqlClient as SqlClient18, SqlSchema as SqlSchema15 } from "@effect/sql";
import { Context as Context19, Effect as Effect27, Layer as Layer18, Option as Option16, Schema as Schema21 } from "effect";

// src/infra/scoring/ScoreListStatements.ts
var listColumns = `v.tender_id, t.title, v.overall_score AS score, v.verdict,
             array_prepend(rtrim(t.main_cpv), t.additional_cpvs::text[]) AS cpv_codes,
             a.name AS contracting_authority, ${isoMillisText("t.deadline")} AS deadline,
             t.estimated_value_ron::float8 AS estimated_value_ron, t.estimated_value_eur::float8 AS estimated_value_eur,
             ${isoMillisText("v.tender_publish_date")} AS publish_date, t.source_url,
             ${isoMicrosText("v.tender_publish_date")} AS publish_key`;
var listOrder = "overall_score DESC, tender_publish_date DESC, tender_id";
var tenderFilter = (status, now2) => {
  if (status === "all") return "";
  const open = `t.cancelled_at IS NULL AND (t.deadline IS NULL OR t.deadline > ${now2}::timestamptz)`;
  return `AND ${status === "open" ? "" : "NOT "}EXISTS (SELECT 1 FROM tenders t WHERE t.id = tender_id AND ${open})`;
};
var firstPageText = (status = "all") => `
    WITH b AS (
      SELECT EXISTS (SELECT 1 FROM companies WHERE id = $1 AND tenant_id = $5::uuid) AS owned
    )
    -- $3 is always null here (the head is shared with the later-page statement).
    SELECT b.owned, coalesce($3::pg_snapshot, pg_current_snapshot())::text AS bound, c.total, p.*
    FROM b
    CROSS JOIN LATERAL (
      SELECT count(*)::int AS total FROM tender_scores WHERE b.owned AND company_id = $1 AND overall_score >= $2
        ${tenderFilter(status, "$6")}
    ) c
    LEFT JOIN LATERAL (
      SELECT ${listColumns}
      FROM tender_scores v
      JOIN tenders t ON t.id = v.tender_id
      JOIN contracting_authorities a ON a.id = t.authority_id
      WHERE b.owned AND v.company_id = $1 AND v.overall_score >= $2 ${tenderFilter(status, "$6")}
      ORDER BY v.overall_score DESC, v.tender_publish_date DESC, v.tender_id
      LIMIT $4
    ) p ON true
    -- publish_key is fixed-width ISO text, so it sorts as the instant does.
    ORDER BY p.score DESC, p.publish_key DESC, p.tender_id`;
var snapshotVersions = (extra, limit) => `
      (SELECT company_id, tender_id, overall_score, verdict, tender_publish_date FROM tender_scores
       WHERE company_id = $1 AND overall_score >= $2 AND pg_visible_in_snapshot(written_xid, b.snap) ${extra}
       ${limit === void 0 ? "" : `ORDER BY ${listOrder} ${limit}`})
      UNION ALL
      (SELECT company_id, tender_id, overall_score, verdict, tender_publish_date FROM tender_score_history
       WHERE company_id = $1 AND overall_score >= $2 AND pg_visible_in_snapshot(written_xid, b.snap)
         AND NOT pg_visible_in_snapshot(superseded_xid, b.snap) ${extra}
       ${limit === void 0 ? "" : `ORDER BY ${listOrder} ${limit}`})`;
var laterPageText = (status = "all") => `
    WITH b AS (
      SELECT EXISTS (SELECT 1 FROM companies WHERE id = $1 AND tenant_id = $5::uuid) AS owned, $3::pg_snapshot AS snap
    )
    SELECT b.owned, b.snap::text AS bound, c.total, p.*
    FROM b
    CROSS JOIN LATERAL (
      SELECT count(*)::int AS total FROM (${snapshotVersions(`AND b.owned ${tenderFilter(status, "$9")}`)}) v
    ) c
    LEFT JOIN LATERAL (
      SELECT ${listColumns}
      FROM (${snapshotVersions(
  `AND b.owned AND overall_score <= $6 AND (overall_score < $6 OR tender_publish_date < $7::timestamptz
             OR (tender_publish_date = $7::timestamptz AND tender_id > $8::uuid)) ${tenderFilter(status, "$9")}`,
  "LIMIT $4"
)}) v
      JOIN tenders t ON t.id = v.tender_id
      JOIN contracting_authorities a ON a.id = t.authority_id
      ORDER BY v.overall_score DESC, v.tender_publish_date DESC, v.tender_id
      LIMIT $4
    ) p ON true
    ORDER BY p.score DESC, p.publish_key DESC, p.tender_id`;
var ScoreListStatements = {
  /** The tenant owning a company: the company check of the score and export routes. */
  companyTenant: statement(
    "tss_company_tenant",
    "SELECT tenant_id FROM companies WHERE id = $1"
  ),
  /** The snapshot of a new export pagination (pg_snapshot text): what later pages rebuild. */
  snapshotBound: statement(
    "tss_snapshot_bound",
    "SELECT pg_current_snapshot()::text AS bound"
  ),
  /** Page 1 (no position yet): takes the snapshot. Both page statements return at least one row. */
  listPage: statement("tss_list_page", firstPageText()),
  /** A page after the position (score, publish key, tender id) of the previous page's last row, in page 1's snapshot. */
  listPageAfter: statement("tss_list_page_after", laterPageText()),
  /** Page 1 of the open or the closed tenders as of the instant $6. */
  listPageOf: {
    open: statement("tss_list_page_open", firstPageText("open")),
    closed: statement(
      "tss_list_page_closed",
      firstPageText("closed")
    )
  },
  /** A later page of the open or the closed tenders as of the instant $9 (page 1's). */
  listPageAfterOf: {
    open: statement("tss_list_page_after_open", laterPageText("open")),
    closed: statement("tss_list_page_after_closed", laterPageText("closed"))
  }
};

// src/infra/scoring/ScoredTendersRepo.ts
var ScoreRow = Schema21.Struct({
  tender_id: Schema21.String,
  overall_score: Schema21.Number,
  overall_confidence: Schema21.Number,
  verdict: Verdict,
  score_semantic: Schema21.Number,
  score_keyword: Schema21.Number,
  score_cpv: Schema21.Number,
  score_value_fit: Schema21.Number,
  score_historical: Schema21.Number,
  cpv_type: Schema21.Literal("primary", "additional", "none"),
  model_version: Schema21.String,
  scored_at: Schema21.String
});
var ExportRow = Schema21.Struct({
  tender_id: Schema21.String,
  title: Schema21.String,
  cpv_codes: Schema21.Array(Schema21.String),
  contracting_authority: Schema21.String,
  authority_county: Schema21.NullOr(Schema21.String),
  deadline: Schema21.NullOr(Schema21.String),
  estimated_value_ron: Schema21.NullOr(Schema21.Number),
  estimated_value_eur: Schema21.NullOr(Schema21.Number),
  publish_date: Schema21.String,
  overall_score: Schema21.Number,
  verdict: Verdict,
  score_cpv: Schema21.NullOr(Schema21.Number),
  score_semantic: Schema21.NullOr(Schema21.Number),
  score_keyword: Schema21.NullOr(Schema21.Number),
  score_value_fit: Schema21.NullOr(Schema21.Number),
  score_historical: Schema21.NullOr(Schema21.Number),
  source_url: Schema21.String,
  publish_key: Schema21.String
});
var ScoredTendersRepo = class extends Context19.Tag("ScoredTendersRepo")() {
};
var ScoredTendersRepoLive = Layer18.effect(
  ScoredTendersRepo,
  Effect27.gen(function* () {
    const sql = yield* SqlClient18.SqlClient;
    const isoMillis = (column) => sql.literal(isoMillisText(column));
    const isoMicros = (column) => sql.literal(isoMicrosText(column));
    const runPrepared = yield* makeRunPrepared;
    const runOnReplica = yield* makeRunPreparedOnReplica;
    const fraction2 = (column) => sql.literal(`round(${column}::numeric, 4)::float8 AS ${column}`);
    const factorPercent = (column) => sql.literal(`round(s.${column}::numeric * 100)::int`);
    const companyTenant = (companyId) => runPrepared(ScoreListStatements.companyTenant, [companyId]).pipe(
      Effect27.map((rows) => Option16.fromNullable(rows[0]?.tenant_id))
    );
    const snapshotBound = runPrepared(ScoreListStatements.snapshotBound, []).pipe(Effect27.map((rows) => rows[0].bound));
    const readListPage = (run, input) => {
      const head = [input.companyId, input.minScore, Option16.getOrNull(input.bound), input.take, input.tenantId];
      const status = input.status;
      const rows = status === "all" ? Option16.match(input.after, {
        onNone: () => run(ScoreListStatements.listPage, head),
        onSome: (p) => run(ScoreListStatements.listPageAfter, [...head, p.score, p.publishKey, p.tenderId])
      }) : Option16.match(input.after, {
        onNone: () => run(ScoreListStatements.listPageOf[status], [...head, input.now]),
        onSome: (p) => run(ScoreListStatements.listPageAfterOf[status], [
          ...head,
          p.score,
          p.publishKey,
          p.tenderId,
          input.now
        ])
      });
      return rows.pipe(
        Effect27.map((rows2) => ({
          // The statement always returns at least one row.
          owned: rows2[0].owned,
          bound: rows2[0].bound,
          total: rows2[0].total,
          rows: rows2.filter((row) => row.tender_id !== null)
        }))
      );
    };
    const listPage = (input) => Option16.match(runOnReplica, {
      onNone: () => readListPage(runPrepared, input),
      onSome: (onReplica) => Effect27.flatMap(
        readListPage(onReplica, input),
        (page) => page.owned ? Effect27.succeed(page) : readListPage(runPrepared, input)
      )
    });
    const findScoreRow = SqlSchema15.findOne({
      Request: Schema21.Struct({ companyId: Schema21.String, tenderId: Schema21.String }),
      Result: ScoreRow,
      execute: (input) => sql`
        SELECT tender_id, overall_score, round(overall_confidence::numeric, 2)::float8 AS overall_confidence, verdict,
               ${fraction2("score_semantic")}, ${fraction2("score_keyword")}, ${fraction2("score_cpv")},
               ${fraction2("score_value_fit")}, ${fraction2("score_historical")}, cpv_type,
               model_version, ${isoMillis("scored_at")} AS scored_at
        FROM tender_scores WHERE company_id = ${input.companyId} AND tender_id = ${input.tenderId}`
    });
    const findScore = (input) => findScoreRow(input).pipe(Effect27.orDie);
    const decodeExportRows = Schema21.decodeUnknown(Schema21.Array(ExportRow));
    const exportStatus = (input) => {
      if (input.status === "all") return sql``;
      const open = sql`EXISTS (SELECT 1 FROM tenders t WHERE t.id = tender_id AND t.cancelled_at IS NULL
        AND (t.deadline IS NULL OR t.deadline > ${input.now}))`;
      return input.status === "open" ? sql`AND ${open}` : sql`AND NOT ${open}`;
    };
    const exportPage = (input) => {
      const within = sql`
          company_id = ${input.companyId}
          AND tender_publish_date >= (${input.from}::date)::timestamp AT TIME ZONE 'Europe/Bucharest'
          AND tender_publish_date < (${input.to}::date + 1)::timestamp AT TIME ZONE 'Europe/Bucharest'
          AND pg_visible_in_snapshot(written_xid, ${input.bound}::pg_snapshot)
          ${Option16.match(input.after, {
        onNone: () => sql``,
        onSome: (p) => sql`AND (tender_publish_date, tender_id) > (${p.publishKey}::timestamptz, ${p.tenderId}::uuid)`
      })}
          ${exportStatus(input)}`;
      const columns = sql.literal(
        "tender_id, overall_score, verdict, score_cpv, score_semantic, score_keyword, score_value_fit, score_historical, tender_publish_date"
      );
      return sql`
        SELECT s.tender_id, t.title,
               array_prepend(rtrim(t.main_cpv), t.additional_cpvs::text[]) AS cpv_codes,
               a.name AS contracting_authority, a.county AS authority_county,
               ${isoMillis("t.deadline")} AS deadline,
               t.estimated_value_ron::float8 AS estimated_value_ron,
               t.estimated_value_eur::float8 AS estimated_value_eur,
               ${isoMillis("s.tender_publish_date")} AS publish_date,
               s.overall_score, s.verdict,
               ${factorPercent("score_cpv")} AS score_cpv,
               ${factorPercent("score_semantic")} AS score_semantic,
               ${factorPercent("score_keyword")} AS score_keyword,
               ${factorPercent("score_value_fit")} AS score_value_fit,
               ${factorPercent("score_historical")} AS score_historical,
               t.source_url,
               ${isoMicros("s.tender_publish_date")} AS publish_key
        FROM (
          (SELECT ${columns} FROM tender_scores WHERE ${within}
           ORDER BY tender_publish_date, tender_id LIMIT ${input.take})
          UNION ALL
          (SELECT ${columns} FROM tender_score_history
           WHERE ${within} AND NOT pg_visible_in_snapshot(superseded_xid, ${input.bound}::pg_snapshot)
           ORDER BY tender_publish_date, tender_id LIMIT ${input.take})
        ) s
        JOIN tenders t ON t.id = s.tender_id
        JOIN contracting_authorities a ON a.id = t.authority_id
        ORDER BY s.tender_publish_date, s.tender_id
        LIMIT ${input.take}`.pipe(Effect27.flatMap(decodeExportRows), Effect27.orDie);
    };
    const pruneVersions = SqlSchema15.single({
      Request: Schema21.Number,
      Result: Schema21.Struct({ n: Schema21.Number }),
      execute: (keepHours) => sql`
        WITH gone AS (
          DELETE FROM tender_score_history WHERE superseded_at < now() - make_interval(hours => ${keepHours})
          RETURNING 1
        )
        SELECT count(*)::int AS n FROM gone`
    });
    const pruneReplacedVersions = (keepHours) => pruneVersions(keepHours).pipe(
      Effect27.map((row) => row.n),
      Effect27.catchTags({ ParseError: Effect27.die, NoSuchElementException: Effect27.die })
    );
    return { companyTenant, snapshotBound, listPage, findScore, exportPage, pruneReplacedVersions };
  })
);

// src/infra/scoring/ScoreReasons.ts
import { Context as Context20, Effect as Effect31, Layer as Layer19 } from "effect";

// src/infra/scoring/CorpusStatsCache.ts
import { SqlClient as SqlClient19 } from "@effect/sql";
import { Effect as Effect28, Ref, Schema as Schema22 } from "effect";
var CORPUS_SAMPLE_SIZE = 2e4;
var GROWTH_TO_REBUILD = 0.1;
var SampleRow = Schema22.Struct({ title: Schema22.String, description: Schema22.String, cpv_label: Schema22.String });
var decodeSample = Schema22.decodeUnknown(Schema22.Array(SampleRow));
var decodeLatest = Schema22.decodeUnknown(Schema22.Tuple(Schema22.Struct({ seq: Schema22.NumberFromString })));
var makeCorpusStatsCache = Effect28.gen(function* () {
  const sql = yield* SqlClient19.SqlClient;
  const snapshot = yield* Ref.make(null);
  const build = (latestSeq) => Effect28.gen(function* () {
    const rows = yield* sql`
        SELECT t.title, t.description,
               coalesce((SELECT c.label_ro FROM cpv_codes c WHERE c.code_full = t.main_cpv), '') AS cpv_label
        FROM tenders t ORDER BY t.ingest_seq DESC LIMIT ${CORPUS_SAMPLE_SIZE}`.pipe(
      Effect28.flatMap((rows2) => Effect28.orDie(decodeSample(rows2)))
    );
    const stats = buildCorpusStats(
      rows.map(
        (row) => prepareTender({
          id: "",
          title: row.title,
          description: row.description,
          mainCpv: "",
          additionalCpvs: [],
          authorityId: "",
          valueRon: null,
          cpvLabel: row.cpv_label
        })
      )
    );
    yield* Ref.set(snapshot, { stats, builtAtSeq: latestSeq });
    return stats;
  });
  const current = Effect28.gen(function* () {
    const [{ seq: latestSeq }] = yield* sql`SELECT coalesce(max(ingest_seq), 0)::text AS seq FROM tenders`.pipe(
      Effect28.flatMap((rows) => Effect28.orDie(decodeLatest(rows)))
    );
    const cached = yield* Ref.get(snapshot);
    if (cached !== null && latestSeq - cached.builtAtSeq <= cached.builtAtSeq * GROWTH_TO_REBUILD) return cached.stats;
    return yield* build(latestSeq);
  });
  return { current };
});

// src/infra/scoring/CpvAffinityTable.ts
import { SqlClient as SqlClient20 } from "@effect/sql";
import { Clock as Clock4, Effect as Effect29, Ref as Ref2 } from "effect";

// src/infra/scoring/ArrayLiteral.ts
var arrayLiteral = (values) => `{${values.join(",")}}`;

// src/infra/scoring/CpvAffinityTable.ts
var makeCpvAffinityTable = Effect29.gen(function* () {
  const sql = yield* SqlClient20.SqlClient;
  const snapshot = yield* Ref2.make(null);
  const recompute = Effect29.gen(function* () {
    const computedAt = new Date(yield* Clock4.currentTimeMillis);
    return yield* sql.withTransaction(
      Effect29.gen(function* () {
        yield* sql`SELECT pg_advisory_xact_lock(hashtext('cpv_class_affinity'))`;
        const wins = yield* sql`
          SELECT DISTINCT w.supplier, left(a.main_cpv, 4) AS cpv_class
          FROM tenders a CROSS JOIN LATERAL unnest(a.winner_fiscal_codes) AS w(supplier)
          WHERE a.notice_type = 'award' AND w.supplier <> ''`;
        const learned = learnAffinity(wins.map((win) => ({ supplier: win.supplier, cpvClass: win.cpv_class })));
        const suppliers = new Set(wins.map((win) => win.supplier)).size;
        yield* sql`DELETE FROM cpv_class_affinity`;
        if (learned.length > 0) {
          yield* sql`
            INSERT INTO cpv_class_affinity (cpv_class, other_class, common_suppliers, class_suppliers, other_suppliers, strength)
            SELECT * FROM unnest(${arrayLiteral(learned.map((a) => a.cpvClass))}::text[],
                                 ${arrayLiteral(learned.map((a) => a.otherClass))}::text[],
                                 ${arrayLiteral(learned.map((a) => a.commonSuppliers))}::int[],
                                 ${arrayLiteral(learned.map((a) => a.classSuppliers))}::int[],
                                 ${arrayLiteral(learned.map((a) => a.otherSuppliers))}::int[],
                                 ${arrayLiteral(learned.map((a) => a.strength))}::real[])`;
        }
        yield* sql`
          UPDATE cpv_affinity_state
          SET revision = revision + 1, model_version = ${MODEL_VERSION}, suppliers = ${suppliers},
              computed_at = ${computedAt.toISOString()}::timestamptz`;
        return learned.length;
      })
    );
  });
  const recomputeAfter = (tenderIds) => Effect29.gen(function* () {
    if (tenderIds.length === 0) return;
    const [awards] = yield* sql`
        SELECT EXISTS (SELECT 1 FROM tenders WHERE id = ANY(${tenderIds}::uuid[]) AND notice_type = 'award') AS any`;
    if (awards?.any === true) yield* recompute;
  });
  const load = (revision) => sql`
      SELECT cpv_class, other_class, common_suppliers, class_suppliers, other_suppliers, strength::float8 AS strength
      FROM cpv_class_affinity`.pipe(
    Effect29.map(
      (rows) => affinityOf(
        revision,
        rows.map(
          (row) => ({
            cpvClass: row.cpv_class,
            otherClass: row.other_class,
            commonSuppliers: row.common_suppliers,
            classSuppliers: row.class_suppliers,
            otherSuppliers: row.other_suppliers,
            strength: row.strength
          })
        )
      )
    )
  );
  const state = sql`
    SELECT revision::text AS revision, model_version FROM cpv_affinity_state`;
  const stored = Effect29.gen(function* () {
    const [row] = yield* state;
    const revision = row?.revision ?? "0";
    const cached = yield* Ref2.get(snapshot);
    if (cached !== null && cached.revision === revision) return cached;
    const loaded = yield* load(revision);
    yield* Ref2.set(snapshot, loaded);
    return loaded;
  });
  const current = Effect29.gen(function* () {
    const [row] = yield* state;
    if (row !== void 0 && row.model_version !== MODEL_VERSION) yield* recompute;
    return yield* stored;
  });
  return { recompute, recomputeAfter, current, stored };
});

// src/infra/scoring/ScoringReads.ts
import { SqlClient as SqlClient21 } from "@effect/sql";
import { Effect as Effect30 } from "effect";

// src/domain/Currency.ts
var EUR_RON = 4.97;

// src/domain/scoring/Evidence.ts
var sourceOf = (company, term) => company.descriptionTerms.has(term) ? "description" : company.keywordTerms.has(term) ? "keywords" : "awardTitles";
var semanticEvidence = (company, tender, shared) => {
  const t = tender.tender;
  const spellings = shared.length === 0 ? /* @__PURE__ */ new Map() : spellingsOf(`${t.title} ${t.description} ${t.cpvLabel ?? ""}`);
  return {
    queryTerms: company.queryTerms.length,
    shared: [...shared].sort((a, b) => b.contribution - a.contribution || (a.term < b.term ? -1 : 1)).map(({ term, contribution }) => ({
      term,
      contribution,
      source: sourceOf(company, term),
      spelling: spellings.get(term) ?? term
    }))
  };
};
var cpvEvidence = (company, match) => {
  const profileCodes = company.profileCodes.length;
  if (match === null || match.tenderCode === null || match.profileCode === null) return { profileCodes, match: null };
  const origin = company.profileCodeOrigins.get(match.profileCode);
  const node = meetingNode(match.tenderCode, match.profileCode, match.depth);
  return {
    profileCodes,
    match: {
      tenderCode: match.tenderCode,
      main: match.cpvType === "primary",
      profileCode: origin.written,
      watched: origin.watched,
      inside: match.depth === INSIDE,
      node,
      level: cpvLevelOf(node),
      score: match.score
    }
  };
};
var affinityEvidence = (match) => match === null ? null : {
  tenderCode: match.tenderCode,
  main: match.main,
  profileCode: match.reach.profileCode,
  commonSuppliers: match.reach.affinity.commonSuppliers,
  classSuppliers: match.reach.affinity.classSuppliers,
  score: match.score
};
var explainScore = (company, tender, corpus, affinity = NO_AFFINITY) => {
  const found = emptyFindings();
  const score = scorePair(company, tender, corpus, affinity, found);
  return {
    score,
    evidence: {
      semantic: semanticEvidence(company, tender, found.semantic),
      keyword: {
        watchedKeywords: company.phrases.length,
        inTitle: found.keyword.inTitle,
        inDescription: found.keyword.inDescription
      },
      cpv: {
        ...cpvEvidence(company, found.cpv),
        affinity: affinityEvidence(found.cpvAffinity),
        feedback: found.cpvFeedback
      },
      value_fit: {
        placement: found.value_fit.placement,
        value: tender.tender.valueRon,
        min: company.minValue,
        max: company.maxValue
      },
      historical: {
        awards: company.company.history.length,
        fiscalCodeKnown: company.company.fiscalCode != null,
        fromAuthority: found.historical.fromAuthority,
        inClass: found.historical.inClass,
        tenderClass: cpvClassOf(tender.tender.mainCpv),
        place: found.place === null ? null : {
          tenderCounty: tender.tender.county,
          nearest: company.place.counties.filter(
            (county) => countyDistance(tender.tender.county, county) === found.place.distance
          ),
          source: company.place.source,
          distance: found.place.distance
        }
      }
    }
  };
};

// src/domain/scoring/phrasebooks/en.ts
var en = {
  separators: { list: ", ", clause: "; " },
  decimalMark: ".",
  millions: "{amount} M RON",
  cpvLevels: {
    division: "division",
    group: "group",
    class: "class",
    category: "category",
    subcategory: "subcategory"
  },
  cpv: {
    noCodes: "no CPV codes to compare: no watchlist codes and no awards won",
    noneNear: "no CPV code of this tender is near your watched codes or the codes of contracts you won",
    mainCode: "main CPV {code}",
    additionalCode: "additional CPV {code}",
    inWatched: "{which} lies in your watched {level} {digits}",
    inWon: "{which} lies in {level} {digits} of a contract you won",
    sharesWatched: "{which} shares {level} {shared} with your watched code {code}",
    sharesWon: "{which} shares {level} {shared} with a contract you won, in code {code}",
    affinity: "firms that win {won} also win {code}: {common} of {suppliers}",
    markedRelevant: {
      one: "you marked 1 tender of CPV class {class} relevant",
      other: "you marked {count} tenders of CPV class {class} relevant"
    },
    markedNotRelevant: {
      one: "you marked 1 tender of CPV class {class} not relevant",
      other: "you marked {count} tenders of CPV class {class} not relevant"
    }
  },
  keyword: {
    none: "no watchlist keywords to look for",
    notFound: "none of your watchlist keywords occurs in the tender",
    found: "keywords found: {list}",
    alsoInDescription: "in the description: {list}",
    onlyInDescription: "keywords found in the description: {list}"
  },
  value: {
    noRange: "no value range in your watchlists",
    range: "your range {min}-{max} M RON",
    minimum: "your minimum {min} M RON",
    maximum: "your maximum {max} M RON",
    noValue: "the tender has no estimated value to compare with {range}",
    below: "{amount} below {range}",
    above: "{amount} above {range}",
    inside: "{amount} inside {range}"
  },
  historical: {
    noFiscalCode: "no fiscal code, so no award history to compare",
    noAwards: "no award notice names your fiscal code as winner",
    won: "won {contracts}: {fromAuthority}, {inClass}",
    contracts: { one: "1 contract", other: "{count} contracts" },
    fromAuthority: { none: "none from this authority", some: "{count} from this authority" },
    inClass: { none: "none in class {class}", some: "{count} in class {class}" },
    place: {
      same: "the tender is in {county}, where you work",
      neighbour: "{county} borders {counties}",
      away: "{county} is {distance} counties from {counties}",
      set: { one: "your county {list}", other: "your counties {list}" },
      awards: { one: "{list}, where you won contracts", other: "{list}, where you won contracts" }
    }
  },
  semantic: {
    noProfile: "no description, keywords or won award titles to compare",
    noneShared: "no word of your description, keywords or won award titles occurs in the tender",
    description: "description shares: {words}",
    keywords: "keywords share: {words}",
    awardTitles: "won award titles share: {words}"
  }
};

// src/domain/scoring/phrasebooks/Phrasebook.ts
var PLACEHOLDER = /\{(\w+)\}/g;
var fill = (template, values) => template.replace(PLACEHOLDER, (placeholder, name) => {
  const value = values[name];
  return value === void 0 ? placeholder : String(value);
});

// src/domain/scoring/phrasebooks/ro.ts
var ro = {
  separators: { list: ", ", clause: "; " },
  decimalMark: ",",
  millions: "{amount} mil. RON",
  cpvLevels: {
    division: "diviziunea",
    group: "grupa",
    class: "clasa",
    category: "categoria",
    subcategory: "subcategoria"
  },
  cpv: {
    noCodes: "niciun cod CPV de comparat: nu urm\u0103ri\u021Bi coduri \u0219i nu a\u021Bi c\xE2\u0219tigat contracte",
    noneNear: "niciun cod CPV al licita\u021Biei nu este apropiat de codurile urm\u0103rite sau de cele ale contractelor c\xE2\u0219tigate",
    mainCode: "codul CPV principal {code}",
    additionalCode: "codul CPV suplimentar {code}",
    inWatched: "{which} se afl\u0103 \xEEn {level} {digits}, pe care o urm\u0103ri\u021Bi",
    inWon: "{which} se afl\u0103 \xEEn {level} {digits} a unui contract c\xE2\u0219tigat",
    sharesWatched: "{which} are \xEEn comun {level} {shared} cu codul urm\u0103rit {code}",
    sharesWon: "{which} are \xEEn comun {level} {shared} cu codul {code} al unui contract c\xE2\u0219tigat",
    affinity: "firmele care c\xE2\u0219tig\u0103 {won} c\xE2\u0219tig\u0103 \u0219i {code}: {common} din {suppliers}",
    markedRelevant: {
      one: "a\u021Bi marcat o licita\u021Bie din clasa CPV {class} ca relevant\u0103",
      other: "a\u021Bi marcat {count} licita\u021Bii din clasa CPV {class} ca relevante"
    },
    markedNotRelevant: {
      one: "a\u021Bi marcat o licita\u021Bie din clasa CPV {class} ca nerelevant\u0103",
      other: "a\u021Bi marcat {count} licita\u021Bii din clasa CPV {class} ca nerelevante"
    }
  },
  keyword: {
    none: "nu urm\u0103ri\u021Bi cuvinte cheie",
    notFound: "niciun cuv\xE2nt cheie urm\u0103rit nu apare \xEEn licita\u021Bie",
    found: "cuvinte cheie g\u0103site: {list}",
    alsoInDescription: "\xEEn descriere: {list}",
    onlyInDescription: "cuvinte cheie g\u0103site \xEEn descriere: {list}"
  },
  value: {
    noRange: "listele de urm\u0103rire nu au un interval de valoare",
    range: "intervalul urm\u0103rit {min}-{max} mil. RON",
    minimum: "minimul urm\u0103rit de {min} mil. RON",
    maximum: "maximul urm\u0103rit de {max} mil. RON",
    noValue: "licita\u021Bia nu are o valoare estimat\u0103 de comparat cu {range}",
    below: "{amount}, sub {range}",
    above: "{amount}, peste {range}",
    inside: "{amount}, \xEEn {range}"
  },
  historical: {
    noFiscalCode: "f\u0103r\u0103 cod fiscal nu exist\u0103 un istoric de contracte de comparat",
    noAwards: "niciun anun\u021B de atribuire nu v\u0103 nume\u0219te codul fiscal drept c\xE2\u0219tig\u0103tor",
    won: "a\u021Bi c\xE2\u0219tigat {contracts}: {fromAuthority}, {inClass}",
    contracts: { one: "un contract", other: "{count} contracte" },
    fromAuthority: { none: "niciunul de la aceast\u0103 autoritate", some: "{count} de la aceast\u0103 autoritate" },
    inClass: { none: "niciunul \xEEn clasa {class}", some: "{count} \xEEn clasa {class}" },
    place: {
      same: "licita\u021Bia este \xEEn {county}, unde lucra\u021Bi",
      neighbour: "{county} se \xEEnvecineaz\u0103 cu {counties}",
      away: "{county} este la {distance} jude\u021Be de {counties}",
      set: { one: "jude\u021Bul \xEEn care lucra\u021Bi, {list}", other: "jude\u021Bele \xEEn care lucra\u021Bi, {list}" },
      awards: { one: "{list}, unde a\u021Bi c\xE2\u0219tigat contracte", other: "{list}, unde a\u021Bi c\xE2\u0219tigat contracte" }
    }
  },
  semantic: {
    noProfile: "nicio descriere, niciun cuv\xE2nt cheie \u0219i niciun titlu de contract c\xE2\u0219tigat de comparat",
    noneShared: "niciun cuv\xE2nt din descriere, din cuvintele cheie sau din titlurile contractelor c\xE2\u0219tigate nu apare \xEEn licita\u021Bie",
    description: "descrierea are \xEEn comun: {words}",
    keywords: "cuvintele cheie au \xEEn comun: {words}",
    awardTitles: "titlurile contractelor c\xE2\u0219tigate au \xEEn comun: {words}"
  }
};

// src/domain/scoring/Reasons.ts
var PHRASEBOOKS = { en, ro };
var MAX_WORDS = 6;
var millions = (ron) => {
  const m = ron / 1e6;
  if (m >= 10) return m.toFixed(0);
  if (m >= 1) return String(Number(m.toFixed(1)));
  return String(Number(m.toPrecision(2)));
};
var millionsIn = (say, ron) => millions(ron).replace(".", say.decimalMark);
var listOf = (say, items) => items.slice(0, MAX_WORDS).join(say.separators.list);
var cpvMatchReason = ({ profileCodes, match, affinity }, say) => {
  if (profileCodes === 0) return say.cpv.noCodes;
  if (affinity !== void 0 && affinity !== null)
    return fill(say.cpv.affinity, {
      won: affinity.profileCode,
      code: affinity.tenderCode.slice(0, 8),
      common: affinity.commonSuppliers,
      suppliers: affinity.classSuppliers
    });
  if (match === null) return say.cpv.noneNear;
  const which = fill(match.main ? say.cpv.mainCode : say.cpv.additionalCode, { code: match.tenderCode });
  const level = say.cpvLevels[match.level];
  if (match.inside) return fill(match.watched ? say.cpv.inWatched : say.cpv.inWon, { which, level, digits: match.node });
  return fill(match.watched ? say.cpv.sharesWatched : say.cpv.sharesWon, {
    which,
    level,
    shared: match.node,
    code: match.profileCode
  });
};
var feedbackClauses = (evidence, say) => {
  const feedback = evidence.feedback;
  if (feedback === void 0 || feedback === null) return [];
  const counted = (phrase, count) => count === 1 ? fill(phrase.one, { class: feedback.cpvClass }) : fill(phrase.other, { count, class: feedback.cpvClass });
  return [
    ...feedback.relevant > 0 ? [counted(say.cpv.markedRelevant, feedback.relevant)] : [],
    ...feedback.notRelevant > 0 ? [counted(say.cpv.markedNotRelevant, feedback.notRelevant)] : []
  ];
};
var cpvReason = (evidence, say) => [cpvMatchReason(evidence, say), ...feedbackClauses(evidence, say)].join(say.separators.clause);
var keywordReason = ({ watchedKeywords, inTitle, inDescription }, say) => {
  if (watchedKeywords === 0) return say.keyword.none;
  if (inTitle.length === 0 && inDescription.length === 0) return say.keyword.notFound;
  const clauses = [];
  if (inTitle.length > 0) clauses.push(fill(say.keyword.found, { list: listOf(say, inTitle) }));
  if (inDescription.length > 0) {
    const list = listOf(say, inDescription);
    clauses.push(fill(clauses.length > 0 ? say.keyword.alsoInDescription : say.keyword.onlyInDescription, { list }));
  }
  return clauses.join(say.separators.clause);
};
var valueReason = ({ placement, value, min, max }, say) => {
  if (min === null && max === null) return say.value.noRange;
  const range = min !== null && max !== null ? fill(say.value.range, { min: millionsIn(say, min), max: millionsIn(say, max) }) : min !== null ? fill(say.value.minimum, { min: millionsIn(say, min) }) : fill(say.value.maximum, { max: millionsIn(say, max) });
  if (value === null) return fill(say.value.noValue, { range });
  const amount = fill(say.millions, { amount: millionsIn(say, value) });
  if (placement === "below") return fill(say.value.below, { amount, range });
  if (placement === "above") return fill(say.value.above, { amount, range });
  return fill(say.value.inside, { amount, range });
};
var placeClause = (evidence, say) => {
  const { place } = say.historical;
  const county = evidence.tenderCounty;
  if (evidence.distance === 0) return fill(place.same, { county });
  const named = evidence.source === "set" ? place.set : place.awards;
  const list = listOf(say, evidence.nearest);
  const counties = evidence.nearest.length === 1 ? fill(named.one, { list }) : fill(named.other, { list, count: evidence.nearest.length });
  if (evidence.distance === 1) return fill(place.neighbour, { county, counties });
  return fill(place.away, { county, counties, distance: evidence.distance });
};
var historicalReason = (evidence, say) => {
  const awardsPart = awardsReason(evidence, say);
  return evidence.place === null ? awardsPart : awardsPart + say.separators.clause + placeClause(evidence.place, say);
};
var awardsReason = (evidence, say) => {
  const { awards, fromAuthority, inClass, tenderClass } = evidence;
  if (awards === 0) return evidence.fiscalCodeKnown ? say.historical.noAwards : say.historical.noFiscalCode;
  const { contracts, fromAuthority: authority, inClass: klass } = say.historical;
  return fill(say.historical.won, {
    contracts: awards === 1 ? contracts.one : fill(contracts.other, { count: awards }),
    fromAuthority: fromAuthority > 0 ? fill(authority.some, { count: fromAuthority }) : authority.none,
    inClass: inClass > 0 ? fill(klass.some, { count: inClass, class: tenderClass }) : fill(klass.none, { class: tenderClass })
  });
};
var TERM_SOURCES = ["description", "keywords", "awardTitles"];
var semanticReason = ({ queryTerms, shared }, say) => {
  if (queryTerms === 0) return say.semantic.noProfile;
  const shown = shared.slice(0, MAX_WORDS);
  if (shown.length === 0) return say.semantic.noneShared;
  return TERM_SOURCES.flatMap((source) => {
    const spellings = shown.filter((term) => term.source === source).map((term) => term.spelling);
    return spellings.length === 0 ? [] : [fill(say.semantic[source], { words: spellings.join(say.separators.list) })];
  }).join(say.separators.clause);
};
var reasonsOf = (evidence, language = "en") => {
  const say = PHRASEBOOKS[language];
  return {
    semantic: semanticReason(evidence.semantic, say),
    keyword: keywordReason(evidence.keyword, say),
    cpv: cpvReason(evidence.cpv, say),
    value_fit: valueReason(evidence.value_fit, say),
    historical: historicalReason(evidence.historical, say)
  };
};
var explainPair = (company, tender, corpus, language = "en", affinity = NO_AFFINITY) => reasonsOf(explainScore(company, tender, corpus, affinity).evidence, language);

// src/infra/scoring/ScoringReads.ts
var toLoadedTender = (row) => ({
  row,
  prepared: prepareTender({
    id: row.id,
    title: row.title,
    description: row.description,
    mainCpv: row.main_cpv.trim(),
    additionalCpvs: row.additional_cpvs.map((code) => code.trim()),
    authorityId: row.authority_id,
    valueRon: row.value_ron,
    cpvLabel: row.cpv_label,
    county: countyOf(row.county)
  })
});
var countyOf = (stored) => stored === null ? null : canonicalCounty(stored);
var makeScoringReads = Effect30.gen(function* () {
  const sql = yield* SqlClient21.SqlClient;
  const TENDER_COLUMNS = sql`
    t.id, t.title, t.description, t.main_cpv, t.additional_cpvs::text[] AS additional_cpvs, t.authority_id,
    coalesce(t.estimated_value_ron, t.estimated_value_eur * ${EUR_RON}::numeric)::float8 AS value_ron,
    t.deadline, t.publish_date, t.ingest_seq::text AS ingest_seq, t.source_url,
    coalesce((SELECT c.label_ro FROM cpv_codes c WHERE c.code_full = t.main_cpv), '') AS cpv_label,
    (SELECT ca.county FROM contracting_authorities ca WHERE ca.id = t.authority_id) AS county`;
  const contractTenders = (ids) => sql`
      SELECT ${TENDER_COLUMNS} FROM tenders t
      WHERE t.id = ANY(${ids}::uuid[]) AND t.notice_type = 'contract'
      ORDER BY t.ingest_seq`.pipe(Effect30.map((rows) => rows.map(toLoadedTender)));
  const openContractTendersAfter = (now2, afterSeq) => sql`
      SELECT ${TENDER_COLUMNS} FROM tenders t
      WHERE t.notice_type = 'contract' AND (t.deadline IS NULL OR t.deadline > ${now2.toISOString()}::timestamptz)
        AND t.cancelled_at IS NULL AND t.ingest_seq > ${afterSeq}::bigint
      ORDER BY t.ingest_seq LIMIT 2000`.pipe(Effect30.map((rows) => rows.map(toLoadedTender)));
  const watchlistsOf = (companyIds) => sql`
      SELECT id, company_id, cpv_codes::text[] AS cpv_codes, keywords, min_value::float8 AS min_value,
             max_value::float8 AS max_value, authority_id, min_score, counties
      FROM watchlists
      WHERE company_id = ANY(${companyIds}::uuid[]) AND deleted_at IS NULL AND active
      ORDER BY created_at, id`.pipe(
    Effect30.map((rows) => {
      const byCompany = /* @__PURE__ */ new Map();
      for (const w of rows) {
        const list = byCompany.get(w.company_id) ?? [];
        list.push({
          id: w.id,
          cpvCodes: w.cpv_codes.map((code) => code.trim()),
          keywords: w.keywords,
          minValue: w.min_value,
          maxValue: w.max_value,
          authorityId: w.authority_id,
          minScore: w.min_score,
          counties: w.counties
        });
        byCompany.set(w.company_id, list);
      }
      return byCompany;
    })
  );
  const awardHistoryOf = (companyIds) => sql`
      SELECT c.id AS company_id, a.authority_id, a.main_cpv, a.title, ca.county,
             coalesce(a.estimated_value_ron, a.estimated_value_eur * ${EUR_RON}::numeric)::float8 AS value_ron
      FROM companies c
      JOIN tenders a ON a.notice_type = 'award' AND a.winner_fiscal_codes @> ARRAY[c.fiscal_code]::text[]
      JOIN contracting_authorities ca ON ca.id = a.authority_id
      WHERE c.id = ANY(${companyIds}::uuid[]) AND c.fiscal_code IS NOT NULL
      ORDER BY a.ingest_seq`.pipe(
    Effect30.map((rows) => {
      const byCompany = /* @__PURE__ */ new Map();
      for (const a of rows) {
        const list = byCompany.get(a.company_id) ?? [];
        list.push({
          authorityId: a.authority_id,
          mainCpv: a.main_cpv.trim(),
          valueRon: a.value_ron,
          title: a.title,
          county: countyOf(a.county)
        });
        byCompany.set(a.company_id, list);
      }
      return byCompany;
    })
  );
  const feedbackOf = (companyIds) => sql`
      SELECT f.company_id, t.main_cpv, f.relevant
      FROM tender_feedback f JOIN tenders t ON t.id = f.tender_id
      WHERE f.company_id = ANY(${companyIds}::uuid[])
      ORDER BY f.tender_id`.pipe(
    Effect30.map((rows) => {
      const byCompany = /* @__PURE__ */ new Map();
      for (const f of rows) {
        const list = byCompany.get(f.company_id) ?? [];
        list.push({ mainCpv: f.main_cpv.trim(), relevant: f.relevant });
        byCompany.set(f.company_id, list);
      }
      return byCompany;
    })
  );
  const companyProfiles = (companyIds) => Effect30.gen(function* () {
    const result = /* @__PURE__ */ new Map();
    if (companyIds.length === 0) return result;
    const companies = yield* sql`
        SELECT id, tenant_id, description, fiscal_code, counties, profile_rev::text AS profile_rev
        FROM companies WHERE id = ANY(${companyIds}::uuid[]) AND active`;
    const watchlists = yield* watchlistsOf(companyIds);
    const history = yield* awardHistoryOf(companyIds);
    const feedback = yield* feedbackOf(companyIds);
    for (const c of companies) {
      const prepared = prepareCompany({
        id: c.id,
        description: c.description,
        fiscalCode: c.fiscal_code,
        counties: c.counties,
        watchlists: watchlists.get(c.id) ?? [],
        history: history.get(c.id) ?? [],
        feedback: feedback.get(c.id) ?? []
      });
      result.set(c.id, { tenantId: c.tenant_id, prepared, revision: c.profile_rev });
    }
    return result;
  });
  const tendersScoredByOtherModels = sql`
    SELECT DISTINCT tender_id FROM tender_scores WHERE model_version <> ${MODEL_VERSION} LIMIT 1000`.pipe(
    Effect30.map((rows) => rows.map((r) => r.tender_id))
  );
  const winnersOfAwards = (ids) => sql`
      SELECT DISTINCT c.id FROM tenders a
      JOIN companies c ON c.fiscal_code = ANY(a.winner_fiscal_codes) AND c.active
      WHERE a.id = ANY(${ids}::uuid[]) AND a.notice_type = 'award'`.pipe(Effect30.map((rows) => rows.map((r) => r.id)));
  const reasonsFor = (companyId, tenderIds, stats, language, affinity = NO_AFFINITY) => Effect30.gen(function* () {
    const result = /* @__PURE__ */ new Map();
    const company = (yield* companyProfiles([companyId])).get(companyId);
    if (company === void 0 || tenderIds.length === 0) return result;
    for (const tender of yield* contractTenders(tenderIds)) {
      result.set(tender.row.id, explainPair(company.prepared, tender.prepared, stats, language, affinity));
    }
    return result;
  });
  return {
    contractTenders,
    openContractTendersAfter,
    companyProfiles,
    tendersScoredByOtherModels,
    winnersOfAwards,
    reasonsFor
  };
});

// src/infra/scoring/ScoreReasons.ts
var ScoreReasons = class extends Context20.Tag("ScoreReasons")() {
};
var ScoreReasonsLive = Layer19.effect(
  ScoreReasons,
  Effect31.gen(function* () {
    const corpus = yield* makeCorpusStatsCache;
    const affinityTable = yield* makeCpvAffinityTable;
    const reads = yield* makeScoringReads;
    return {
      reasonsFor: (companyId, tenderIds, language = "en") => Effect31.gen(function* () {
        const stats = yield* corpus.current;
        const affinity = yield* affinityTable.stored;
        return yield* reads.reasonsFor(companyId, tenderIds, stats, language, affinity);
      }).pipe(Effect31.orDie, Effect31.withSpan("ScoreReasons.reasonsFor"))
    };
  })
);

// src/infra/scoring/ScoringService.ts
import { Clock as Clock6, Context as Context22, Effect as Effect36, Layer as Layer20 } from "effect";

// src/infra/scoring/CandidatePrefilter.ts
import { SqlClient as SqlClient23 } from "@effect/sql";
import { Effect as Effect33 } from "effect";

// src/infra/scoring/CpvDivisions.ts
import { SqlClient as SqlClient22 } from "@effect/sql";
import { Effect as Effect32, Schema as Schema23 } from "effect";
var DivisionRow = Schema23.Struct({ code_full: Schema23.String });
var loadCpvDivisions = Effect32.gen(function* () {
  const sql = yield* SqlClient22.SqlClient;
  const rows = yield* sql`
    SELECT code_full FROM cpv_codes WHERE substr(code_full, 3, 6) = '000000'`.pipe(
    Effect32.flatMap((rows2) => Effect32.orDie(Schema23.decodeUnknown(Schema23.Array(DivisionRow))(rows2)))
  );
  const divisions = new Map(rows.map(({ code_full }) => [code_full.slice(0, 2), code_full]));
  const divisionsOf = {
    divisionCodeOf: (tenderCode) => {
      const code = divisions.get(tenderCode.slice(0, 2));
      return code === void 0 ? [] : [code];
    }
  };
  return divisionsOf;
});

// src/infra/scoring/CandidatePrefilter.ts
var makeCandidatePrefilter = Effect33.gen(function* () {
  const sql = yield* SqlClient23.SqlClient;
  const divisions = yield* Effect33.cached(loadCpvDivisions.pipe(Effect33.provideService(SqlClient23.SqlClient, sql)));
  const candidatePairs = (tenders, stats, affinity) => Effect33.gen(function* () {
    const cpv = yield* divisions;
    const codesOf = (t) => [t.prepared.tender.mainCpv, ...t.prepared.tender.additionalCpvs];
    const affineClasses = new Map(
      tenders.map((t) => [
        t,
        new Set(
          codesOf(t).flatMap(
            (code) => [...affinity.byClass.get(code.slice(0, 4))?.values() ?? []].filter((a) => a.strength >= AFFINITY_CANDIDATE_STRENGTH).map((a) => a.otherClass)
          )
        )
      ])
    );
    const allAffine = [...new Set(tenders.flatMap((t) => [...affineClasses.get(t)]))];
    const classKey = (cpvClass) => significantDigits(`${cpvClass}0000`).slice(0, 4);
    const cpvKeys = new Map(tenders.map((t) => [t, new Set(codesOf(t).flatMap(tenderCpvKeys))]));
    const allCpvKeys = [.../* @__PURE__ */ new Set([...tenders.flatMap((t) => [...cpvKeys.get(t)]), ...allAffine.map(classKey)])];
    const allKeys = [...new Set(tenders.flatMap((t) => [...t.prepared.indexKeys]))];
    const allAuthorities = [...new Set(tenders.map((t) => t.row.authority_id))];
    const allGroups = [...new Set(tenders.flatMap((t) => codesOf(t).map((code) => code.slice(0, 3))))];
    const affineGroups = [...new Set(allAffine.map((c) => c.slice(0, 3)))];
    const allDivisionCodes = [...new Set(tenders.flatMap((t) => codesOf(t).flatMap(cpv.divisionCodeOf)))];
    const textKeys = new Map(
      tenders.map((t) => [
        t,
        new Set([...t.prepared.termFrequencies.keys()].filter((term) => isSpecific(stats, term)).map(indexKey))
      ])
    );
    const allTextKeys = [...new Set(tenders.flatMap((t) => [...textKeys.get(t)]))];
    const watchlists = yield* sql`
        SELECT company_id, cpv_keys, keyword_anchors AS anchors, authority_id
        FROM watchlists
        WHERE deleted_at IS NULL AND active
          AND (cpv_keys && ${allCpvKeys}::text[]
               OR keyword_anchors && ${allKeys}::text[]
               OR authority_id = ANY(${allAuthorities}::uuid[]))`;
    const awards = yield* sql`
        SELECT c.id AS company_id, a.main_cpv::text AS main_cpv, a.authority_id
        FROM tenders a
        JOIN companies c ON c.fiscal_code = ANY(a.winner_fiscal_codes) AND c.active
        WHERE a.notice_type = 'award'
          AND (left(a.main_cpv, 3) = ANY(${allGroups}::text[])
               OR (left(a.main_cpv, 3) = ANY(${affineGroups}::text[]) AND left(a.main_cpv, 4) = ANY(${allAffine}::text[]))
               OR a.main_cpv = ANY(${allDivisionCodes}::char(10)[])
               OR a.authority_id = ANY(${allAuthorities}::uuid[]))`;
    const described = yield* sql`
        SELECT id AS company_id, description_keys AS keys
        FROM companies
        WHERE active AND description_keys && ${allTextKeys}::text[]`;
    const wonTexts = yield* sql`
        SELECT c.id AS company_id, a.award_title_keys AS keys
        FROM tenders a
        JOIN companies c ON c.fiscal_code = ANY(a.winner_fiscal_codes) AND c.active
        WHERE a.notice_type = 'award' AND a.award_title_keys && ${allTextKeys}::text[]`;
    const byCpvKey = /* @__PURE__ */ new Map();
    const byAnchor = /* @__PURE__ */ new Map();
    const byAuthority = /* @__PURE__ */ new Map();
    const add = (map, key, companyId) => {
      const set = map.get(key);
      if (set === void 0) map.set(key, /* @__PURE__ */ new Set([companyId]));
      else set.add(companyId);
    };
    for (const w of watchlists) {
      for (const key of w.cpv_keys) add(byCpvKey, key, w.company_id);
      for (const anchor of w.anchors) add(byAnchor, anchor, w.company_id);
      if (w.authority_id !== null) add(byAuthority, w.authority_id, w.company_id);
    }
    const byAwardGroup = /* @__PURE__ */ new Map();
    const byAwardClass = /* @__PURE__ */ new Map();
    const byAwardDivision = /* @__PURE__ */ new Map();
    for (const a of awards) {
      add(byAwardGroup, a.main_cpv.slice(0, 3), a.company_id);
      add(byAwardClass, a.main_cpv.slice(0, 4), a.company_id);
      if (a.main_cpv.slice(2, 8) === "000000") add(byAwardDivision, a.main_cpv.slice(0, 2), a.company_id);
      add(byAuthority, a.authority_id, a.company_id);
    }
    const byTextKey = /* @__PURE__ */ new Map();
    for (const row of [...described, ...wonTexts]) for (const key of row.keys) add(byTextKey, key, row.company_id);
    const pairs = [];
    for (const tender of tenders) {
      const companies = /* @__PURE__ */ new Set();
      const collect = (set) => {
        if (set !== void 0) for (const id of set) companies.add(id);
      };
      for (const key of cpvKeys.get(tender)) collect(byCpvKey.get(key));
      for (const key of tender.prepared.indexKeys) collect(byAnchor.get(key));
      collect(byAuthority.get(tender.row.authority_id));
      for (const code of codesOf(tender)) {
        collect(byAwardGroup.get(code.slice(0, 3)));
        collect(byAwardDivision.get(code.slice(0, 2)));
      }
      for (const cpvClass of affineClasses.get(tender)) {
        collect(byAwardClass.get(cpvClass));
        collect(byCpvKey.get(classKey(cpvClass)));
      }
      for (const key of textKeys.get(tender)) collect(byTextKey.get(key));
      for (const companyId of companies) pairs.push({ tender, companyId });
    }
    return pairs;
  });
  return { candidatePairs };
});

// src/infra/scoring/CompanyProfileCache.ts
import { SqlClient as SqlClient24 } from "@effect/sql";
import { Effect as Effect34 } from "effect";
var makeCompanyProfileCache = (reads) => Effect34.gen(function* () {
  const sql = yield* SqlClient24.SqlClient;
  const cache = /* @__PURE__ */ new Map();
  const begin = Effect34.gen(function* () {
    const revisions = /* @__PURE__ */ new Map();
    for (const row of yield* sql`
        SELECT id, profile_rev::text AS profile_rev FROM companies WHERE active`) {
      revisions.set(row.id, row.profile_rev);
    }
    for (const [id, company] of cache) if (revisions.get(id) !== company.revision) cache.delete(id);
    const profilesOf = (companyIds) => Effect34.gen(function* () {
      const isCurrent = (id) => cache.get(id)?.revision === revisions.get(id);
      const stale = companyIds.filter((id) => !revisions.has(id) || !isCurrent(id));
      const loaded = yield* reads.companyProfiles(stale);
      for (const [id, company] of loaded) cache.set(id, company);
      const result = /* @__PURE__ */ new Map();
      for (const id of companyIds) {
        const company = loaded.get(id) ?? (isCurrent(id) ? cache.get(id) : void 0);
        if (company !== void 0) result.set(id, company);
      }
      return result;
    });
    return { profilesOf };
  });
  return { begin };
});

// src/infra/scoring/ScoreWriter.ts
import { SqlClient as SqlClient25 } from "@effect/sql";
import { Clock as Clock5, Context as Context21, Effect as Effect35 } from "effect";

// src/domain/scoring/MatchEvent.ts
var tenderMatchedPayload = (companyId, tender, score, at) => ({
  event: "tender.matched",
  company_id: companyId,
  tender: {
    id: tender.id,
    title: tender.title,
    score: score.overallScore,
    verdict: score.verdict,
    cpv_codes: [...tender.cpvCodes],
    deadline: tender.deadline === null ? null : tender.deadline.toISOString(),
    estimated_value_ron: tender.estimatedValueRon,
    source_url: tender.sourceUrl
  },
  timestamp: at.toISOString()
});

// src/domain/scoring/ScoreFloor.ts
var SCORE_FLOOR = 15;

// src/infra/scoring/ScoreWriter.ts
var StoredScoreFloor = class extends Context21.Reference()("StoredScoreFloor", {
  defaultValue: () => SCORE_FLOOR
}) {
};
var noPairs = { company: [], tender: [] };
var emptyScoreColumns = () => ({
  company: [],
  tender: [],
  overall: [],
  confidence: [],
  verdict: [],
  semantic: [],
  keyword: [],
  cpv: [],
  valueFit: [],
  historical: [],
  cpvType: [],
  publishDate: [],
  ingestSeq: []
});
var pushScore = (scores, companyId, tender, score, publishDates) => {
  scores.company.push(companyId);
  scores.tender.push(tender.row.id);
  scores.overall.push(score.overallScore);
  scores.confidence.push(score.overallConfidence);
  scores.verdict.push(score.verdict);
  scores.semantic.push(score.factors.semantic.score);
  scores.keyword.push(score.factors.keyword.score);
  scores.cpv.push(score.factors.cpv.score);
  scores.valueFit.push(score.factors.value_fit.score);
  scores.historical.push(score.factors.historical.score);
  scores.cpvType.push(score.factors.cpv.cpv_type);
  let publishDate = publishDates.get(tender);
  if (publishDate === void 0) {
    publishDate = tender.row.publish_date.toISOString();
    publishDates.set(tender, publishDate);
  }
  scores.publishDate.push(publishDate);
  scores.ingestSeq.push(tender.row.ingest_seq);
};
var rowsOf = (pairs, stats, affinity, alerting, scoredAt, floor) => {
  const scores = emptyScoreColumns();
  const matches = [];
  const publishDates = /* @__PURE__ */ new Map();
  for (const { tender, company } of pairs) {
    const score = scorePair(company.prepared, tender.prepared, stats, affinity);
    const companyId = company.prepared.company.id;
    if (score.overallScore >= floor) pushScore(scores, companyId, tender, score, publishDates);
    if (!alerting.mayAlert(tender.row.id, companyId, score.verdict)) continue;
    const watchlists = alertingWatchlists(company.prepared, tender.prepared, score);
    if (watchlists.length === 0) continue;
    const matched = {
      id: tender.row.id,
      title: tender.row.title,
      cpvCodes: [tender.prepared.tender.mainCpv, ...tender.prepared.tender.additionalCpvs],
      deadline: tender.row.deadline,
      estimatedValueRon: tender.row.value_ron,
      sourceUrl: tender.row.source_url
    };
    matches.push({
      tenantId: company.tenantId,
      companyId,
      tenderId: tender.row.id,
      watchlistIds: watchlists.map(({ watchlist }) => watchlist.id),
      score: score.overallScore,
      verdict: score.verdict,
      event: tenderMatchedPayload(companyId, matched, score, scoredAt)
    });
  }
  return { scores, matches };
};
var makeScoreWriter = Effect35.gen(function* () {
  const sql = yield* SqlClient25.SqlClient;
  const sink = yield* MatchSink;
  const removeOpenScoresOf = (companyId, now2, keep = noPairs) => sql`
      DELETE FROM tender_scores s USING tenders t
      WHERE s.company_id = ${companyId} AND t.id = s.tender_id
        AND (t.deadline IS NULL OR t.deadline > ${now2.toISOString()}::timestamptz) AND t.cancelled_at IS NULL
        AND ${notIn(keep)}`;
  const notIn = (keep) => keep.company.length === 0 ? sql`true` : sql`NOT EXISTS (SELECT 1 FROM unnest(${arrayLiteral(keep.company)}::uuid[], ${arrayLiteral(keep.tender)}::uuid[]) AS k(company_id, tender_id)
                        WHERE k.company_id = s.company_id AND k.tender_id = s.tender_id)`;
  const removeMovedScores = (scores, scope) => {
    const rescored = "tenderIds" in scope ? new Set(scope.tenderIds) : void 0;
    const dates = /* @__PURE__ */ new Map();
    scores.tender.forEach((tenderId, i) => {
      if (rescored === void 0 || rescored.has(tenderId)) dates.set(tenderId, scores.publishDate[i]);
    });
    if (dates.size === 0) return Effect35.void;
    const companyId = "companyId" in scope ? scope.companyId : void 0;
    return sql`
      DELETE FROM tender_scores s
      USING unnest(${arrayLiteral([...dates.keys()])}::uuid[], ${arrayLiteral([...dates.values()])}::timestamptz[])
              AS k(tender_id, publish_date), tenders t
      WHERE s.tender_id = k.tender_id AND t.id = k.tender_id
        AND ${companyId === void 0 ? sql`true` : sql`s.company_id = ${companyId}`}
        AND (s.tender_publish_date <> k.publish_date OR s.tender_publish_date <> t.publish_date)`;
  };
  const verdictsOf = (tenderIds) => sql`
      SELECT company_id, tender_id, verdict FROM tender_scores WHERE tender_id = ANY(${tenderIds}::uuid[])`.pipe(
    Effect35.map((rows) => new Map(rows.map((row) => [`${row.company_id}\0${row.tender_id}`, row.verdict])))
  );
  const removeOutdatedScores = (tenderIds) => sql`DELETE FROM tender_scores
        WHERE tender_id = ANY(${tenderIds}::uuid[]) AND model_version <> ${MODEL_VERSION}`;
  const scoreAndWrite = (pairs, stats, affinity, isNew, staleScope, changed = /* @__PURE__ */ new Set()) => Effect35.gen(function* () {
    ;
    (yield* Metrics).scoringPairs.inc(pairs.length);
    const scoredAt = new Date(yield* Clock5.currentTimeMillis);
    const before = changed.size === 0 ? /* @__PURE__ */ new Map() : yield* verdictsOf([...changed]);
    const alerting = {
      mayAlert: (tenderId, companyId, verdict) => isNew.has(tenderId) || changed.has(tenderId) && verdictRose(before.get(`${companyId}\0${tenderId}`), verdict)
    };
    const { scores, matches } = rowsOf(pairs, stats, affinity, alerting, scoredAt, yield* StoredScoreFloor);
    const computedAt = yield* Clock5.currentTimeMillis;
    const written = yield* sql.withTransaction(
      Effect35.gen(function* () {
        if ("tenderIds" in staleScope) {
          if (staleScope.tenderIds.length > 0) {
            yield* sql`DELETE FROM tender_scores s
                         WHERE s.tender_id = ANY(${staleScope.tenderIds}::uuid[]) AND ${notIn(scores)}`;
          }
        } else {
          yield* removeOpenScoresOf(staleScope.companyId, staleScope.now, scores);
        }
        if (scores.company.length > 0) {
          yield* removeMovedScores(
            scores,
            "companyId" in staleScope ? { companyId: staleScope.companyId } : { tenderIds: staleScope.tenderIds }
          );
          yield* sql`
              INSERT INTO tender_scores (company_id, tender_id, overall_score, overall_confidence, verdict,
                                         score_semantic, score_keyword, score_cpv, score_value_fit, score_historical,
                                         cpv_type, model_version, scored_at, tender_publish_date, tender_ingest_seq)
              SELECT s.company_id, s.tender_id, s.overall_score, s.overall_confidence, s.verdict, s.semantic, s.keyword,
                     s.cpv, s.value_fit, s.historical, s.cpv_type, ${MODEL_VERSION},
                     ${scoredAt.toISOString()}::timestamptz, s.publish_date, s.ingest_seq
              FROM unnest(${arrayLiteral(scores.company)}::uuid[], ${arrayLiteral(scores.tender)}::uuid[],
                          ${arrayLiteral(scores.overall)}::smallint[], ${arrayLiteral(scores.confidence)}::real[],
                          ${arrayLiteral(scores.verdict)}::text[], ${arrayLiteral(scores.semantic)}::real[],
                          ${arrayLiteral(scores.keyword)}::real[], ${arrayLiteral(scores.cpv)}::real[],
                          ${arrayLiteral(scores.valueFit)}::real[], ${arrayLiteral(scores.historical)}::real[],
                          ${arrayLiteral(scores.cpvType)}::text[], ${arrayLiteral(scores.publishDate)}::timestamptz[],
                          ${arrayLiteral(scores.ingestSeq)}::bigint[])
                AS s(company_id, tender_id, overall_score, overall_confidence, verdict, semantic, keyword, cpv,
                     value_fit, historical, cpv_type, publish_date, ingest_seq)
              -- In company order: both list indexes lead with the company, so neighbouring rows
              -- land on the same index pages (measured: the insert ~25% cheaper). Then by tender:
              -- every writer (a batch, a company's rescore) upserts in this one order, so two of them
              -- meeting on the same pairs wait for each other instead of deadlocking.
              ORDER BY s.company_id, s.tender_id
              ON CONFLICT (tender_id, company_id, tender_publish_date) DO UPDATE SET
                overall_score = EXCLUDED.overall_score, overall_confidence = EXCLUDED.overall_confidence,
                verdict = EXCLUDED.verdict, score_semantic = EXCLUDED.score_semantic,
                score_keyword = EXCLUDED.score_keyword, score_cpv = EXCLUDED.score_cpv,
                score_value_fit = EXCLUDED.score_value_fit, score_historical = EXCLUDED.score_historical,
                cpv_type = EXCLUDED.cpv_type, model_version = EXCLUDED.model_version,
                scored_at = EXCLUDED.scored_at, tender_ingest_seq = EXCLUDED.tender_ingest_seq`;
        }
        const { alerts, events } = yield* sink.record(matches);
        return { scored: scores.company.length, alerts, events };
      })
    );
    yield* Effect35.logDebug(
      `scoring: ${pairs.length} pairs computed in ${computedAt - scoredAt.getTime()} ms, written in ${(yield* Clock5.currentTimeMillis) - computedAt} ms`
    );
    return written;
  });
  return { scoreAndWrite, removeOpenScoresOf, removeOutdatedScores };
});

// src/infra/scoring/ScoringService.ts
var ScoringService = class _ScoringService extends Context22.Tag("ScoringService")() {
  /** For unit tests of callers: the given operations, the others scoring nothing. */
  static Test = (operations = {}) => Layer20.succeed(_ScoringService, {
    scoreTenders: () => Effect36.succeed({ scored: 0, alerts: 0, events: 0 }),
    rescoreCompany: () => Effect36.succeed({ scored: 0 }),
    backfillModelVersion: Effect36.succeed(0),
    ...operations
  });
};
var SCORING_BATCH_SIZE = 250;
var chunksOf = (items, size) => {
  const chunks = [];
  for (let i = 0; i < items.length; i += size) chunks.push(items.slice(i, i + size));
  return chunks;
};
var makeScoringService = Effect36.gen(function* () {
  const corpus = yield* makeCorpusStatsCache;
  const affinityTable = yield* makeCpvAffinityTable;
  const reads = yield* makeScoringReads;
  const prefilter = yield* makeCandidatePrefilter;
  const writer = yield* makeScoreWriter;
  const jobs = yield* JobQueue;
  const profileCache = yield* makeCompanyProfileCache(reads);
  const scoreBatch = (tenderIds, isNew, changed, stats, affinity, profiles) => Effect36.gen(function* () {
    const startedAt = yield* Clock6.currentTimeMillis;
    const tenders = yield* reads.contractTenders(tenderIds);
    if (tenders.length === 0) return { scored: 0, alerts: 0, events: 0 };
    const candidates = yield* prefilter.candidatePairs(tenders, stats, affinity);
    const companies = yield* profiles.profilesOf([...new Set(candidates.map((c) => c.companyId))]);
    const profilesAt = yield* Clock6.currentTimeMillis;
    const pairs = [];
    for (const { tender, companyId } of candidates) {
      const company = companies.get(companyId);
      if (company !== void 0 && isCandidate(company.prepared, tender.prepared, stats, affinity))
        pairs.push({ tender, company });
    }
    yield* Effect36.logDebug(
      `scoring: prefilter of ${tenders.length} tenders found ${pairs.length} pairs of ${companies.size} companies in ${(yield* Clock6.currentTimeMillis) - startedAt} ms (${profilesAt - startedAt} ms to the profiles)`
    );
    const rescored = tenders.map((t) => t.row.id).filter((id) => !isNew.has(id));
    const changedHere = new Set(tenders.map((t) => t.row.id).filter((id) => changed.has(id)));
    return yield* writer.scoreAndWrite(pairs, stats, affinity, isNew, { tenderIds: rescored }, changedHere);
  });
  const scoreTenders = (tenderIds, options) => Effect36.gen(function* () {
    yield* affinityTable.recomputeAfter(tenderIds);
    const affinity = yield* affinityTable.current;
    const stats = yield* corpus.current;
    const isNew = new Set(options.isNew);
    const changed = new Set(options.changed ?? []);
    const profiles = yield* profileCache.begin;
    const total = { scored: 0, alerts: 0, events: 0 };
    yield* Effect36.forEach(
      chunksOf([...new Set(tenderIds)], SCORING_BATCH_SIZE),
      (batch) => Effect36.map(scoreBatch(batch, isNew, changed, stats, affinity, profiles), (result) => {
        total.scored += result.scored;
        total.alerts += result.alerts;
        total.events += result.events;
      }),
      { concurrency: 2, discard: true }
    );
    for (const companyId of yield* reads.winnersOfAwards(tenderIds)) {
      yield* jobs.enqueue(RescoreCompany, { companyId });
    }
    return total;
  }).pipe(Effect36.orDie, Effect36.withSpan("ScoringService.scoreTenders"));
  const rescoreCompany = (companyId) => Effect36.gen(function* () {
    const stats = yield* corpus.current;
    const affinity = yield* affinityTable.current;
    const now2 = new Date(yield* Clock6.currentTimeMillis);
    const company = (yield* reads.companyProfiles([companyId])).get(companyId);
    if (company === void 0) {
      yield* writer.removeOpenScoresOf(companyId, now2);
      return { scored: 0 };
    }
    const pairs = [];
    let afterSeq = "0";
    while (true) {
      const tenders = yield* reads.openContractTendersAfter(now2, afterSeq);
      if (tenders.length === 0) break;
      afterSeq = tenders[tenders.length - 1].row.ingest_seq;
      for (const tender of tenders) {
        if (isCandidate(company.prepared, tender.prepared, stats, affinity)) pairs.push({ tender, company });
      }
    }
    const result = yield* writer.scoreAndWrite(pairs, stats, affinity, /* @__PURE__ */ new Set(), { companyId, now: now2 });
    return { scored: result.scored };
  }).pipe(Effect36.orDie, Effect36.withSpan("ScoringService.rescoreCompany"));
  const backfillModelVersion = Effect36.gen(function* () {
    let total = 0;
    if ((yield* reads.tendersScoredByOtherModels).length === 0) return total;
    const now2 = new Date(yield* Clock6.currentTimeMillis);
    let afterSeq = "0";
    while (true) {
      const open = yield* reads.openContractTendersAfter(now2, afterSeq);
      if (open.length === 0) break;
      afterSeq = open[open.length - 1].row.ingest_seq;
      total += (yield* scoreTenders(
        open.map((t) => t.row.id),
        { isNew: [] }
      )).scored;
    }
    while (true) {
      const tenderIds = yield* reads.tendersScoredByOtherModels;
      if (tenderIds.length === 0) return total;
      const result = yield* scoreTenders(tenderIds, { isNew: [] });
      total += result.scored;
      yield* writer.removeOutdatedScores(tenderIds);
    }
  });
  return ScoringService.of({ scoreTenders, rescoreCompany, backfillModelVersion });
});
var ScoringServiceLive = Layer20.effect(ScoringService, makeScoringService).pipe(Layer20.provide(JobQueueLive));

// src/infra/scoring/TenderFeedback.ts
import { SqlClient as SqlClient26 } from "@effect/sql";
import { Context as Context23, Effect as Effect37, Layer as Layer21, Option as Option17 } from "effect";
var TenderFeedback = class extends Context23.Tag("TenderFeedback")() {
};
var toMark = (row) => ({
  companyId: row.company_id,
  tenderId: row.tender_id,
  relevant: row.relevant,
  markedAt: row.marked_at
});
var makeTenderFeedback = Effect37.gen(function* () {
  const sql = yield* SqlClient26.SqlClient;
  const jobs = yield* JobQueue;
  const rescoreIfActive = (companyId, active) => active ? jobs.enqueue(RescoreCompany, { companyId }) : Effect37.void;
  const mark = (input) => sql.withTransaction(
    Effect37.gen(function* () {
      const rows = yield* sql`
            WITH marked AS (
              INSERT INTO tender_feedback (company_id, tender_id, tenant_id, relevant, marked_at)
              SELECT s.company_id, s.tender_id, c.tenant_id, ${input.relevant}, ${input.now.toISOString()}::timestamptz
              FROM tender_scores s JOIN companies c ON c.id = s.company_id
              WHERE s.company_id = ${input.companyId}::uuid AND s.tender_id = ${input.tenderId}::uuid
                AND c.tenant_id = ${input.tenantId}::uuid
              ON CONFLICT (company_id, tender_id)
                DO UPDATE SET relevant = EXCLUDED.relevant, marked_at = EXCLUDED.marked_at
              RETURNING company_id, tender_id, relevant, marked_at
            )
            SELECT m.*, c.active FROM marked m JOIN companies c ON c.id = m.company_id`;
      const row = rows[0];
      if (row === void 0) {
        return yield* new FeedbackTargetNotFound({ companyId: input.companyId, tenderId: input.tenderId });
      }
      yield* rescoreIfActive(input.companyId, row.active);
      return toMark(row);
    })
  ).pipe(Effect37.catchTag("SqlError", Effect37.die));
  const unmark = (input) => sql.withTransaction(
    Effect37.gen(function* () {
      const deleted = yield* sql`
            DELETE FROM tender_feedback
            WHERE company_id = ${input.companyId}::uuid AND tender_id = ${input.tenderId}::uuid
              AND tenant_id = ${input.tenantId}::uuid
            RETURNING (SELECT active FROM companies WHERE id = company_id) AS active`;
      if (deleted.length > 0) {
        yield* rescoreIfActive(input.companyId, deleted[0].active === true);
        return;
      }
      const scored = yield* sql`
            SELECT 1 FROM tender_scores s JOIN companies c ON c.id = s.company_id
            WHERE s.company_id = ${input.companyId}::uuid AND s.tender_id = ${input.tenderId}::uuid
              AND c.tenant_id = ${input.tenantId}::uuid`;
      if (scored.length === 0) {
        return yield* new FeedbackTargetNotFound({ companyId: input.companyId, tenderId: input.tenderId });
      }
    })
  ).pipe(Effect37.catchTag("SqlError", Effect37.die));
  const list = (input) => Effect37.gen(function* () {
    const owned = yield* sql`
        SELECT 1 FROM companies WHERE id = ${input.companyId}::uuid AND tenant_id = ${input.tenantId}::uuid`;
    if (owned.length === 0) return Option17.none();
    const rows = yield* sql`
        SELECT company_id, tender_id, relevant, marked_at FROM tender_feedback
        WHERE company_id = ${input.companyId}::uuid
        ORDER BY marked_at DESC, tender_id`;
    return Option17.some(rows.map(toMark));
  }).pipe(Effect37.orDie);
  return TenderFeedback.of({ mark, unmark, list });
});
var TenderFeedbackLive = Layer21.effect(TenderFeedback, makeTenderFeedback).pipe(Layer21.provide(JobQueueLive));

// src/infra/tenders/CpvSearch.ts
import { SqlClient as SqlClient27, SqlSchema as SqlSchema16 } from "@effect/sql";
import { Context as Context24, Effect as Effect38, Layer as Layer22, Schema as Schema24 } from "effect";
var CpvMatch = Schema24.Struct({
  code: Schema24.String,
  label_ro: Schema24.String,
  label_en: Schema24.String,
  level: Schema24.Literal("division", "group", "class", "category", "subcategory")
});
var CpvSearch = class extends Context24.Tag("CpvSearch")() {
};
var foldText = (text) => text.normalize("NFD").replace(/[\u0300-\u036f]/g, "").toLowerCase();
var FOLD_FROM2 = "\u0103\xE2\xEE\u0219\u021B\u015F\u0163\xE1\xE0\xE4\xE9\xE8\xEB\xED\xEC\xEF\xF3\xF2\xF6\xFA\xF9\xFC\xE7\xF1";
var FOLD_TO2 = "aaiststaaaeeeiiiooouuucn";
var likeEscape2 = (word) => word.replace(/[\\%_]/g, (c) => `\\${c}`);
var CpvSearchLive = Layer22.effect(
  CpvSearch,
  Effect38.gen(function* () {
    const sql = yield* SqlClient27.SqlClient;
    const folded = (column) => sql.literal(`translate(lower(${column}), '${FOLD_FROM2}', '${FOLD_TO2}')`);
    const matches = SqlSchema16.findAll({
      Request: Schema24.Struct({
        /** Folded words of the query, at least one. */
        words: Schema24.Array(Schema24.String),
        /** 2 to 8 leading digits of a code, when the query is one; else the words search the labels. */
        codePrefix: Schema24.NullOr(Schema24.String),
        limit: Schema24.Number
      }),
      Result: CpvMatch,
      execute: ({ words: words2, codePrefix, limit }) => {
        const phrase = likeEscape2(words2.join(" "));
        const conditions = codePrefix !== null ? sql`c.code LIKE ${`${codePrefix}%`}` : sql.and(
          words2.map(
            (word) => sql`(${folded("c.label_ro")} LIKE ${`%${likeEscape2(word)}%`} OR ${folded("c.label_en")} LIKE ${`%${likeEscape2(word)}%`})`
          )
        );
        return sql`
          SELECT rtrim(c.code_full) AS code, c.label_ro, c.label_en, c.level
          FROM cpv_codes c
          WHERE ${conditions}
          ORDER BY
            (${folded("c.label_ro")} LIKE ${`${phrase}%`} OR ${folded("c.label_en")} LIKE ${`${phrase}%`}) DESC,
            CASE c.level WHEN 'division' THEN 0 WHEN 'group' THEN 1 WHEN 'class' THEN 2 WHEN 'category' THEN 3 ELSE 4 END,
            c.code
          LIMIT ${limit}`;
      }
    });
    const search = (input) => {
      const words2 = foldText(input.q).split(/[^\p{L}\p{N}]+/u).filter((word) => word.length > 0).slice(0, 10);
      const codeDigits = input.q.replace(/[\s-]/g, "").slice(0, 8);
      const byCode = /^\d{2,8}$/.test(codeDigits) && /^[\d\s-]+$/.test(input.q);
      if (words2.length === 0) return Effect38.succeed([]);
      return matches({ words: words2, codePrefix: byCode ? codeDigits : null, limit: input.limit }).pipe(Effect38.orDie);
    };
    return { search };
  })
);

// src/infra/tenders/TenderStore.ts
import { SqlClient as SqlClient28, SqlSchema as SqlSchema17 } from "@effect/sql";
import { Context as Context25, Effect as Effect39, Layer as Layer23, Schema as Schema25 } from "effect";
var TENDER_CHUNK_SIZE = 500;
var TenderStore = class extends Context25.Tag("TenderStore")() {
};
var Texts = Schema25.Array(Schema25.String);
var NullableTexts = Schema25.Array(Schema25.NullOr(Schema25.String));
var AuthorityColumns = Schema25.Struct({
  name: Texts,
  normalizedName: Texts,
  fiscalCode: NullableTexts,
  county: NullableTexts
});
var TenderColumns = Schema25.Struct({
  source: Texts,
  sourceNoticeId: Texts,
  noticeType: Texts,
  title: Texts,
  description: Texts,
  mainCpv: Texts,
  additionalCpvs: Texts,
  authorityId: Texts,
  deadline: NullableTexts,
  estimatedValueRon: Schema25.Array(Schema25.NullOr(Schema25.Number)),
  estimatedValueEur: Schema25.Array(Schema25.NullOr(Schema25.Number)),
  publishDate: Texts,
  sourceUrl: Texts,
  winnerFiscalCodes: Texts
});
var authorityColumns = (list) => ({
  name: list.map((a) => a.name),
  normalizedName: list.map((a) => a.normalizedName),
  fiscalCode: list.map((a) => a.fiscalCode),
  county: list.map((a) => a.county)
});
var keyOf = (tender) => `${tender.source}\0${tender.sourceNoticeId}`;
var sortedValues = (byKey) => [...byKey.entries()].sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0).map(([, value]) => value);
var TenderStoreLive = Layer23.effect(
  TenderStore,
  Effect39.gen(function* () {
    const sql = yield* SqlClient28.SqlClient;
    const upsertAuthoritiesWithCode = SqlSchema17.findAll({
      Request: AuthorityColumns,
      Result: Schema25.Struct({ id: Schema25.String, fiscal_code: Schema25.String }),
      execute: (c) => sql`
        INSERT INTO contracting_authorities (name, normalized_name, fiscal_code, county)
        SELECT * FROM unnest(
          ${c.name}::text[], ${c.normalizedName}::text[], ${c.fiscalCode}::text[], ${c.county}::text[])
        ON CONFLICT (fiscal_code) WHERE fiscal_code IS NOT NULL
        DO UPDATE SET county = COALESCE(contracting_authorities.county, EXCLUDED.county)
        RETURNING id, fiscal_code`
    });
    const upsertAuthoritiesWithoutCode = SqlSchema17.findAll({
      Request: AuthorityColumns,
      Result: Schema25.Struct({ id: Schema25.String, normalized_name: Schema25.String }),
      execute: (c) => sql`
        INSERT INTO contracting_authorities (name, normalized_name, county)
        SELECT * FROM unnest(${c.name}::text[], ${c.normalizedName}::text[], ${c.county}::text[])
        ON CONFLICT (normalized_name) WHERE fiscal_code IS NULL
        DO UPDATE SET county = COALESCE(contracting_authorities.county, EXCLUDED.county)
        RETURNING id, normalized_name`
    });
    const upsertTenders = SqlSchema17.findAll({
      Request: TenderColumns,
      Result: Schema25.Struct({
        id: Schema25.String,
        source: Schema25.String,
        source_notice_id: Schema25.String,
        inserted: Schema25.Boolean
      }),
      execute: (c) => sql`
        INSERT INTO tenders (
          source, source_notice_id, notice_type, title, description, main_cpv, additional_cpvs,
          authority_id, deadline, estimated_value_ron, estimated_value_eur, publish_date, source_url,
          winner_fiscal_codes)
        SELECT t.source, t.source_notice_id, t.notice_type, t.title, t.description, t.main_cpv,
          string_to_array(t.additional_cpvs, ',')::char(10)[], t.authority_id, t.deadline, t.ron, t.eur,
          t.publish_date, t.source_url, string_to_array(t.winners, ',')
        FROM unnest(
          ${c.source}::text[],
          ${c.sourceNoticeId}::text[],
          ${c.noticeType}::text[],
          ${c.title}::text[],
          ${c.description}::text[],
          ${c.mainCpv}::text[],
          ${c.additionalCpvs}::text[],
          ${c.authorityId}::uuid[],
          ${c.deadline}::timestamptz[],
          ${c.estimatedValueRon}::numeric[],
          ${c.estimatedValueEur}::numeric[],
          ${c.publishDate}::timestamptz[],
          ${c.sourceUrl}::text[],
          ${c.winnerFiscalCodes}::text[]
        ) AS t(source, source_notice_id, notice_type, title, description, main_cpv, additional_cpvs,
               authority_id, deadline, ron, eur, publish_date, source_url, winners)
        ON CONFLICT (source, source_notice_id) DO UPDATE SET
          notice_type = EXCLUDED.notice_type,
          title = EXCLUDED.title,
          description = EXCLUDED.description,
          main_cpv = EXCLUDED.main_cpv,
          additional_cpvs = EXCLUDED.additional_cpvs,
          authority_id = EXCLUDED.authority_id,
          deadline = EXCLUDED.deadline,
          estimated_value_ron = EXCLUDED.estimated_value_ron,
          estimated_value_eur = EXCLUDED.estimated_value_eur,
          publish_date = EXCLUDED.publish_date,
          source_url = EXCLUDED.source_url,
          winner_fiscal_codes = EXCLUDED.winner_fiscal_codes,
          updated_at = now()
        RETURNING id, source, source_notice_id, (xmax = 0) AS inserted`
    });
    const allCpvCodes = SqlSchema17.findAll({
      Request: Schema25.Void,
      Result: Schema25.Struct({ code_full: Schema25.String }),
      execute: () => sql`SELECT code_full FROM cpv_codes`
    });
    const upsertAuthorities = (authorities) => Effect39.gen(function* () {
      const withCode = /* @__PURE__ */ new Map();
      const withoutCode = /* @__PURE__ */ new Map();
      for (const authority of authorities) {
        const [map, key] = authority.fiscalCode !== null ? [withCode, authority.fiscalCode] : [withoutCode, authority.normalizedName];
        const known = map.get(key);
        map.set(key, known === void 0 ? authority : { ...known, county: known.county ?? authority.county });
      }
      const ids = /* @__PURE__ */ new Map();
      if (withCode.size > 0) {
        const rows = yield* upsertAuthoritiesWithCode(authorityColumns(sortedValues(withCode)));
        for (const row of rows) ids.set(row.fiscal_code, row.id);
      }
      if (withoutCode.size > 0) {
        const rows = yield* upsertAuthoritiesWithoutCode(authorityColumns(sortedValues(withoutCode)));
        for (const row of rows) ids.set(`name:${row.normalized_name}`, row.id);
      }
      return (authority) => ids.get(authority.fiscalCode ?? `name:${authority.normalizedName}`);
    });
    const upsertChunk = (chunk) => sql.withTransaction(
      Effect39.gen(function* () {
        const unique = sortedValues(new Map(chunk.map((tender) => [keyOf(tender), tender])));
        const authorityId = yield* upsertAuthorities(unique.map((t) => t.authority));
        const rows = yield* upsertTenders({
          source: unique.map((t) => t.source),
          sourceNoticeId: unique.map((t) => t.sourceNoticeId),
          noticeType: unique.map((t) => t.noticeType),
          title: unique.map((t) => t.title),
          description: unique.map((t) => t.description),
          mainCpv: unique.map((t) => t.mainCpv),
          additionalCpvs: unique.map((t) => t.additionalCpvs.join(",")),
          authorityId: unique.map((t) => authorityId(t.authority)),
          deadline: unique.map((t) => t.deadline?.toISOString() ?? null),
          estimatedValueRon: unique.map((t) => t.estimatedValueRon),
          estimatedValueEur: unique.map((t) => t.estimatedValueEur),
          publishDate: unique.map((t) => t.publishDate.toISOString()),
          sourceUrl: unique.map((t) => t.sourceUrl),
          winnerFiscalCodes: unique.map((t) => t.winnerFiscalCodes.join(","))
        });
        const byKey = new Map(rows.map((row) => [`${row.source}\0${row.source_notice_id}`, row]));
        const inserted = [];
        const updated = [];
        const seen = /* @__PURE__ */ new Set();
        for (const tender of chunk) {
          const row = byKey.get(keyOf(tender));
          const first = !seen.has(row.id);
          seen.add(row.id);
          if (first && row.inserted) inserted.push(row.id);
          else updated.push(row.id);
        }
        return { inserted, updated };
      })
    ).pipe(Effect39.catchTag("ParseError", Effect39.die));
    const reasonOf = (error) => String(error.cause?.message ?? error.message).replace(/\s+/g, " ");
    const upsert = (tenders) => Effect39.gen(function* () {
      const inserted = [];
      const updated = [];
      const failed = [];
      for (let start = 0; start < tenders.length; start += TENDER_CHUNK_SIZE) {
        const chunk = tenders.slice(start, start + TENDER_CHUNK_SIZE);
        const result = yield* upsertChunk(chunk).pipe(
          // A refused chunk: store what can be stored, one tender per transaction.
          Effect39.catchTag(
            "SqlError",
            () => Effect39.forEach(
              chunk,
              (tender) => upsertChunk([tender]).pipe(
                Effect39.catchTag("SqlError", (error) => {
                  failed.push({ tender, reason: `database refused it: ${reasonOf(error)}` });
                  return Effect39.succeed({ inserted: [], updated: [] });
                })
              )
            ).pipe(
              Effect39.map((results) => ({
                inserted: results.flatMap((r) => r.inserted),
                updated: results.flatMap((r) => r.updated)
              }))
            )
          )
        );
        inserted.push(...result.inserted);
        updated.push(...result.updated);
      }
      return { inserted, updated, failed };
    });
    const cpvCatalog = allCpvCodes().pipe(Effect39.map(makeCpvCatalog), Effect39.orDie);
    return { upsert, cpvCatalog };
  })
);

// src/infra/webhooks/Deliveries.ts
import { SqlClient as SqlClient29 } from "@effect/sql";
import { Context as Context26, Duration as Duration7, Effect as Effect41, Layer as Layer24, Schema as Schema28 } from "effect";

// src/domain/webhooks/DeliverySchedule.ts
import { Duration as Duration6, Effect as Effect40, Option as Option18, Schedule as Schedule4 } from "effect";
var TENDER_MATCHED = "tender.matched";
var DeliveryRetrySchedule = Schedule4.fromDelays(
  Duration6.seconds(30),
  Duration6.minutes(5),
  Duration6.minutes(30)
);
var AUTOMATIC_ATTEMPTS = 4;
var delayAfterFailedAttempt = (attemptNo) => Effect40.runSync(delayAfterFailure(DeliveryRetrySchedule, attemptNo));
var isSuccessStatus = (status) => status >= 200 && status < 300;
var outcomeOf = (succeeded, attemptNo, attemptsAllowed) => {
  if (succeeded) return { _tag: "succeeded" };
  if (attemptNo >= attemptsAllowed) return { _tag: "failed" };
  return Option18.match(delayAfterFailedAttempt(attemptNo), {
    onNone: () => ({ _tag: "failed" }),
    onSome: (after2) => ({ _tag: "retry", after: after2 })
  });
};

// src/domain/webhooks/TenderMatchedBody.ts
import { Schema as Schema27 } from "effect";

// src/domain/Timestamps.ts
import { Schema as Schema26 } from "effect";
var DateTimeString = Schema26.String.annotations({ jsonSchema: { type: "string", format: "date-time" } });
var DateString = Schema26.String.annotations({ jsonSchema: { type: "string", format: "date" } });
var DateTime = Schema26.Date.annotations({
  identifier: "DateTime",
  jsonSchema: { type: "string", format: "date-time" }
});

// src/domain/webhooks/TenderMatchedBody.ts
var Uuid = Schema27.String.pipe(Schema27.pattern(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/));
var TenderMatchedBody = Schema27.Struct({
  event: Schema27.Literal("tender.matched"),
  company_id: Uuid,
  company_name: Schema27.String.annotations({ description: "Extension: the company's name" }),
  tender: Schema27.Struct({
    id: Uuid,
    title: Schema27.String,
    score: Schema27.Number.pipe(Schema27.int()),
    verdict: Verdict,
    cpv_codes: Schema27.Array(Schema27.String),
    deadline: Schema27.NullOr(DateTimeString),
    estimated_value_ron: Schema27.NullOr(Schema27.Number),
    source_url: Schema27.String,
    contracting_authority: Schema27.String.annotations({ description: "Extension: the contracting authority's name" })
  }),
  timestamp: DateTimeString
}).annotations({
  description: "Body of a tender.matched delivery: the fields of spec 6.1 plus the extensions company_name and tender.contracting_authority"
});
var tenderMatchedBody = (event, names) => ({
  event: event.event,
  company_id: event.company_id,
  company_name: names.companyName,
  tender: { ...event.tender, contracting_authority: names.authorityName },
  timestamp: event.timestamp
});

// src/infra/webhooks/Deliveries.ts
var DeliverWebhook = jobKind("webhook.deliver", Schema28.Struct({ deliveryId: Schema28.String }), {
  maxAttempts: 20,
  retry: DeliveryRetrySchedule
});
var failureMessage = (delivery, lastError) => ({
  subject: `Webhook delivery failed: ${delivery.url}`,
  bodyText: [
    `A ${TENDER_MATCHED} delivery to your webhook could not be delivered after ${delivery.attemptNo} attempts.`,
    "",
    `Webhook URL: ${delivery.url}`,
    `Webhook id:  ${delivery.webhookId}`,
    `Delivery id: ${delivery.id}`,
    `Event:       ${TENDER_MATCHED}`,
    `Last error:  ${lastError}`,
    "",
    "You can retry the delivery from the dashboard."
  ].join("\n")
});
var describe = (result) => result._tag === "response" ? `HTTP ${result.status} response` : result.message;
var Deliveries = class extends Context26.Tag("Deliveries")() {
};
var DeliveriesLive = Layer24.effect(
  Deliveries,
  Effect41.gen(function* () {
    const sql = yield* SqlClient29.SqlClient;
    const queue = yield* JobQueue;
    const outbox = yield* EmailOutbox;
    const namesOf = (matches) => Effect41.gen(function* () {
      const companyIds = [...new Set(matches.map((match) => match.companyId))];
      const tenderIds = [...new Set(matches.map((match) => match.tenderId))];
      const companies = yield* sql`
          SELECT id::text, name FROM companies WHERE id = ANY(${companyIds}::uuid[])`;
      const authorities = yield* sql`
          SELECT t.id::text, a.name FROM tenders t JOIN contracting_authorities a ON a.id = t.authority_id
          WHERE t.id = ANY(${tenderIds}::uuid[])`;
      const companyName = new Map(companies.map((row) => [row.id, row.name]));
      const authorityName = new Map(authorities.map((row) => [row.id, row.name]));
      return (match) => ({
        companyName: companyName.get(match.companyId) ?? "",
        authorityName: authorityName.get(match.tenderId) ?? ""
      });
    });
    const recordMatches = (matches) => Effect41.gen(function* () {
      if (matches.length === 0) return 0;
      const now2 = yield* clockNow;
      const names = yield* namesOf(matches);
      const payloads = matches.map((match) => JSON.stringify(tenderMatchedBody(match.event, names(match))));
      const rows = yield* sql`
          WITH input AS (
            SELECT * FROM unnest(${matches.map((m) => m.tenantId)}::uuid[], ${matches.map((m) => m.companyId)}::uuid[],
                                 ${matches.map((m) => m.tenderId)}::uuid[], ${payloads}::text[])
              AS e(tenant_id, company_id, tender_id, payload)
          ), inserted AS (
            INSERT INTO match_events (tenant_id, company_id, tender_id, payload)
            SELECT tenant_id, company_id, tender_id, payload::jsonb FROM input
            ON CONFLICT (company_id, tender_id) DO NOTHING
            RETURNING id, tenant_id, company_id, tender_id
          ), deliveries AS (
            INSERT INTO webhook_deliveries (webhook_id, event_id, tenant_id, body, status, next_attempt_at,
                                            created_at, updated_at)
            SELECT w.id, i.id, i.tenant_id, input.payload, 'pending', ${now2}, ${now2}, ${now2}
            FROM inserted i
            JOIN input ON input.company_id = i.company_id AND input.tender_id = i.tender_id
            JOIN webhooks w ON w.tenant_id = i.tenant_id AND w.active AND ${TENDER_MATCHED} = ANY(w.events)
            RETURNING id, webhook_id
          )
          SELECT d.id::text, d.webhook_id::text, (SELECT count(*) FROM inserted)::int AS events
          FROM (SELECT NULL) AS one LEFT JOIN deliveries d ON true`;
      yield* queue.enqueueAll(
        DeliverWebhook,
        rows.flatMap(
          (row) => row.webhook_id === null ? [] : [{ payload: { deliveryId: row.id }, groupKey: row.webhook_id }]
        )
      );
      return rows[0]?.events ?? 0;
    }).pipe(Effect41.orDie);
    const claimedDeliveryId = sql`
      CASE WHEN c.payload->>'deliveryId' ~* '^[0-9a-f]{8}-([0-9a-f]{4}-){3}[0-9a-f]{12}$'
           THEN (c.payload->>'deliveryId')::uuid END`;
    const startClaimed = Effect41.map(
      clockNow,
      (now2) => sql`
        UPDATE webhook_deliveries d SET status = 'delivering', updated_at = ${now2}
        FROM claimed c, webhooks w
        WHERE c.kind = ${DeliverWebhook.name} AND d.id = ${claimedDeliveryId}
          AND d.status IN ('pending', 'delivering') AND w.id = d.webhook_id AND w.active
        RETURNING c.id AS job_id,
          json_build_object('id', d.id, 'tenantId', d.tenant_id, 'webhookId', d.webhook_id, 'url', w.url,
                            'secretCiphertext', encode(w.secret_ciphertext, 'base64'), 'body', d.body,
                            'attemptNo', d.attempt_count + 1, 'attemptsAllowed', d.attempts_allowed) AS started`
    );
    const finish = (job, delivery, startedAt, result) => Effect41.gen(function* () {
      const now2 = yield* clockNow;
      const succeeded = result._tag === "response" && isSuccessStatus(result.status);
      const outcome = outcomeOf(succeeded, delivery.attemptNo, delivery.attemptsAllowed);
      const status = outcome._tag === "retry" ? "pending" : outcome._tag;
      const nextAttemptAt = outcome._tag === "retry" ? new Date(now2.getTime() + Duration7.toMillis(outcome.after)) : null;
      const code = result._tag === "response" ? result.status : null;
      const error = result._tag === "error" ? result.message : null;
      const settlement = outcome._tag === "succeeded" ? { _tag: "done", keep: false } : outcome._tag === "retry" ? { _tag: "retry", at: nextAttemptAt, error: describe(result) } : { _tag: "dead", error: describe(result) };
      const held = yield* queue.settlement(job, settlement);
      const startedAtDate = new Date(startedAt);
      const sendsEmail = outcome._tag === "failed" && delivery.attemptNo === AUTOMATIC_ATTEMPTS;
      const record = sql`
          WITH held AS (${held}), updated AS (
            UPDATE webhook_deliveries
            SET status = ${status}, attempt_count = ${delivery.attemptNo}, next_attempt_at = ${nextAttemptAt},
                last_status_code = ${code}, last_attempt_at = ${startedAtDate}, updated_at = ${now2}
            WHERE id = ${delivery.id} AND status = 'delivering' AND EXISTS (SELECT 1 FROM held)
            RETURNING id
          ), logged AS (
            INSERT INTO webhook_delivery_attempts (delivery_id, attempt_no, started_at, finished_at, response_code, error)
            VALUES (${delivery.id}, ${delivery.attemptNo}, ${startedAtDate}, ${now2}, ${code}, ${error})
            ON CONFLICT (delivery_id, attempt_no) DO UPDATE SET started_at = EXCLUDED.started_at,
              finished_at = EXCLUDED.finished_at, response_code = EXCLUDED.response_code, error = EXCLUDED.error
              WHERE EXISTS (SELECT 1 FROM updated)
            RETURNING 1
          )
          SELECT EXISTS (SELECT 1 FROM updated) AS ours`.pipe(Effect41.map((rows) => rows[0]?.ours === true));
      if (!sendsEmail) return (yield* record) ? status : "lost";
      return yield* sql.withTransaction(
        Effect41.gen(function* () {
          if (!(yield* record)) return "lost";
          yield* outbox.enqueueForTenant(delivery.tenantId, failureMessage(delivery, describe(result)));
          return status;
        })
      );
    }).pipe(Effect41.orDie);
    const recordDead = (deliveryId) => Effect41.flatMap(
      clockNow,
      (now2) => sql`
          UPDATE webhook_deliveries SET status = 'failed', updated_at = ${now2}
          WHERE id = ${deliveryId} AND status IN ('pending', 'delivering')`
    ).pipe(Effect41.asVoid, Effect41.orDie);
    return { recordMatches, startClaimed, finish, recordDead };
  })
).pipe(Layer24.provide(Layer24.merge(JobQueueLive, EmailOutboxLive)));

// src/infra/webhooks/WebhooksRepo.ts
import { SqlClient as SqlClient30, SqlSchema as SqlSchema18 } from "@effect/sql";
import { Clock as Clock7, Context as Context27, Effect as Effect42, Layer as Layer25, Option as Option19, Schema as Schema29 } from "effect";

// src/domain/webhooks/Registration.ts
var MAX_ACTIVE_WEBHOOKS = 5;

// src/infra/webhooks/WebhooksRepo.ts
var DASHBOARD_DELIVERIES = 10;
var WebhooksRepo = class extends Context27.Tag("WebhooksRepo")() {
};
var WebhookRow = Schema29.Struct({
  id: Schema29.String,
  url: Schema29.String,
  events: Schema29.Array(Schema29.String),
  active: Schema29.Boolean,
  created_at: Schema29.DateFromSelf,
  deleted_at: Schema29.NullOr(Schema29.DateFromSelf)
});
var DeliveryRow = Schema29.Struct({
  id: Schema29.String,
  status: Schema29.String,
  timestamp: Schema29.DateFromSelf,
  response_code: Schema29.NullOr(Schema29.Number)
});
var DashboardRow = Schema29.Struct({ ...DeliveryRow.fields, webhook_id: Schema29.String });
var TenantAnd = Schema29.Struct({ tenantId: Schema29.String, id: Schema29.String });
var toWebhook = (row) => ({
  id: row.id,
  url: row.url,
  events: row.events,
  active: row.active,
  createdAt: row.created_at,
  deletedAt: row.deleted_at
});
var toDelivery = (row) => ({
  id: row.id,
  status: row.status,
  timestamp: row.timestamp,
  responseCode: row.response_code
});
var now = Effect42.map(Clock7.currentTimeMillis, (millis) => new Date(millis));
var WebhooksRepoLive = Layer25.effect(
  WebhooksRepo,
  Effect42.gen(function* () {
    const sql = yield* SqlClient30.SqlClient;
    const queue = yield* JobQueue;
    const deliveryColumns = sql`
      d.id, d.status, coalesce(a.started_at, d.created_at) AS timestamp,
      CASE WHEN a.attempt_no IS NULL THEN d.last_status_code ELSE a.response_code END AS response_code`;
    const lastAttempt = sql`
      LEFT JOIN LATERAL (
        SELECT attempt_no, started_at, response_code FROM webhook_delivery_attempts
        WHERE delivery_id = d.id ORDER BY attempt_no DESC LIMIT 1
      ) a ON true`;
    const countActive = SqlSchema18.single({
      Request: Schema29.String,
      Result: Schema29.Struct({ active: Schema29.Number }),
      execute: (tenantId) => sql`
        SELECT count(*)::int AS active FROM webhooks WHERE tenant_id = ${tenantId} AND active`
    });
    const insertWebhook = SqlSchema18.single({
      Request: Schema29.Struct({
        tenantId: Schema29.String,
        url: Schema29.String,
        events: Schema29.Array(Schema29.String),
        secretCiphertext: Schema29.Uint8ArrayFromSelf,
        createdAt: Schema29.DateFromSelf
      }),
      Result: WebhookRow,
      execute: (input) => sql`
        INSERT INTO webhooks (tenant_id, url, secret_ciphertext, events, created_at)
        VALUES (${input.tenantId}, ${input.url}, ${Buffer.from(input.secretCiphertext)},
                ${[...input.events]}::text[], ${input.createdAt})
        RETURNING id, url, events, active, created_at, deleted_at`
    });
    const activeWebhooks = SqlSchema18.findAll({
      Request: Schema29.String,
      Result: WebhookRow,
      execute: (tenantId) => sql`
        SELECT id, url, events, active, created_at, deleted_at FROM webhooks
        WHERE tenant_id = ${tenantId} AND active ORDER BY created_at, id`
    });
    const deactivate = SqlSchema18.findOne({
      Request: Schema29.Struct({ ...TenantAnd.fields, at: Schema29.DateFromSelf }),
      Result: WebhookRow,
      execute: (input) => sql`
        UPDATE webhooks SET active = false, deleted_at = ${input.at}
        WHERE id = ${input.id} AND tenant_id = ${input.tenantId} AND active
        RETURNING id, url, events, active, created_at, deleted_at`
    });
    const recentDeliveries = SqlSchema18.findAll({
      Request: Schema29.String,
      Result: DashboardRow,
      execute: (tenantId) => sql`
        SELECT w.id AS webhook_id, recent.* FROM webhooks w
        CROSS JOIN LATERAL (
          SELECT ${deliveryColumns}, d.created_at AS created_order FROM webhook_deliveries d ${lastAttempt}
          WHERE d.webhook_id = w.id
          ORDER BY d.created_at DESC, d.id DESC LIMIT ${DASHBOARD_DELIVERIES}
        ) recent
        WHERE w.tenant_id = ${tenantId} AND w.active
        ORDER BY recent.created_order DESC, recent.id DESC`
    });
    const webhookOfDeliveryForShare = SqlSchema18.findOne({
      Request: TenantAnd,
      Result: Schema29.Struct({ active: Schema29.Boolean }),
      execute: (input) => sql`
        SELECT w.active FROM webhooks w
        WHERE w.id = (SELECT webhook_id FROM webhook_deliveries WHERE id = ${input.id})
          AND w.tenant_id = ${input.tenantId}
        FOR SHARE`
    });
    const deliveryForUpdate = SqlSchema18.findOne({
      Request: TenantAnd,
      Result: Schema29.Struct({ status: Schema29.String }),
      execute: (input) => sql`
        SELECT status FROM webhook_deliveries
        WHERE id = ${input.id} AND tenant_id = ${input.tenantId} FOR UPDATE`
    });
    const allowOneMoreAttempt = SqlSchema18.single({
      Request: Schema29.Struct({ id: Schema29.String, at: Schema29.DateFromSelf }),
      Result: Schema29.Struct({ webhook_id: Schema29.String }),
      execute: (input) => sql`
        UPDATE webhook_deliveries
        SET status = 'pending', attempts_allowed = attempt_count + 1, next_attempt_at = ${input.at},
            updated_at = ${input.at}
        WHERE id = ${input.id}
        RETURNING webhook_id::text`
    });
    const deliverySummary = SqlSchema18.single({
      Request: Schema29.String,
      Result: DeliveryRow,
      execute: (id) => sql`
        SELECT ${deliveryColumns} FROM webhook_deliveries d ${lastAttempt} WHERE d.id = ${id}`
    });
    const create = (input) => sql.withTransaction(
      Effect42.gen(function* () {
        yield* lockTenant(sql, input.tenantId);
        const { active } = yield* countActive(input.tenantId);
        if (active >= MAX_ACTIVE_WEBHOOKS) return yield* new WebhookLimitExceeded({ limit: MAX_ACTIVE_WEBHOOKS });
        const row = yield* insertWebhook({ ...input, createdAt: yield* now });
        return toWebhook(row);
      })
    ).pipe(Effect42.catchTags({ SqlError: Effect42.die, ParseError: Effect42.die, NoSuchElementException: Effect42.die }));
    const listActive = (tenantId) => activeWebhooks(tenantId).pipe(
      Effect42.map((rows) => rows.map(toWebhook)),
      Effect42.orDie
    );
    const remove = (input) => sql.withTransaction(
      Effect42.gen(function* () {
        const at = yield* now;
        const row = yield* deactivate({ tenantId: input.tenantId, id: input.id, at });
        if (Option19.isNone(row)) return yield* new WebhookNotFound({ id: input.id });
        yield* sql`
              UPDATE webhook_deliveries SET status = 'webhook_deleted', updated_at = ${at}
              WHERE webhook_id = ${input.id} AND status IN ('pending', 'delivering')`;
        return toWebhook(row.value);
      })
    ).pipe(Effect42.catchTags({ SqlError: Effect42.die, ParseError: Effect42.die }));
    const dashboard = (tenantId) => Effect42.gen(function* () {
      const webhooks = yield* listActive(tenantId);
      if (webhooks.length === 0) return [];
      const rows = yield* recentDeliveries(tenantId).pipe(Effect42.orDie);
      return webhooks.map((webhook) => ({
        ...webhook,
        deliveries: rows.filter((row) => row.webhook_id === webhook.id).map(toDelivery)
      }));
    });
    const retryDelivery = (input) => sql.withTransaction(
      Effect42.gen(function* () {
        const request = { tenantId: input.tenantId, id: input.deliveryId };
        const webhook = yield* webhookOfDeliveryForShare(request);
        if (Option19.isNone(webhook)) return yield* new DeliveryNotFound({ id: input.deliveryId });
        const delivery = yield* deliveryForUpdate(request);
        if (Option19.isNone(delivery)) return yield* new DeliveryNotFound({ id: input.deliveryId });
        if (delivery.value.status !== "failed") {
          return yield* new DeliveryNotRetryable({ id: input.deliveryId, status: delivery.value.status });
        }
        if (!webhook.value.active) {
          return yield* new DeliveryNotRetryable({ id: input.deliveryId, status: "webhook deleted" });
        }
        const retried = yield* allowOneMoreAttempt({ id: input.deliveryId, at: yield* now });
        yield* queue.enqueue(DeliverWebhook, { deliveryId: input.deliveryId }, { groupKey: retried.webhook_id });
        return toDelivery(yield* deliverySummary(input.deliveryId));
      })
    ).pipe(Effect42.catchTags({ SqlError: Effect42.die, ParseError: Effect42.die, NoSuchElementException: Effect42.die }));
    return { create, listActive, remove, dashboard, retryDelivery };
  })
).pipe(Layer25.provide(JobQueueLive));

// src/infra/Repositories.ts
var MatchSinkLive = Layer26.effect(
  MatchSink,
  Effect43.gen(function* () {
    const alerts = yield* AlertWriter;
    const deliveries = yield* Deliveries;
    return {
      record: (matches) => Effect43.zipWith(alerts.recordMatches(matches), deliveries.recordMatches(matches), (alerts2, events) => ({
        alerts: alerts2,
        events
      }))
    };
  })
).pipe(Layer26.provide(Layer26.merge(AlertWriterLive, DeliveriesLive)));
var ScoringLive = ScoringServiceLive.pipe(Layer26.provide(MatchSinkLive));
var RepositoriesLive = Layer26.mergeAll(
  TenantsRepoLive,
  UsersRepoLive,
  CompaniesRepoLive,
  ApiKeysRepoLive,
  CreditLedgerLive,
  JobQueueLive,
  EmailOutboxLive,
  WatchlistsRepoLive,
  CompanyProfilesRepoLive,
  AlertsRepoLive,
  ScoredTendersRepoLive,
  TenderStoreLive,
  ScoringLive,
  ScoreReasonsLive,
  TenderFeedbackLive,
  WebhooksRepoLive,
  AppTenderReadsLive,
  CpvSearchLive,
  IngestStateLive,
  DigestSettingsRepoLive,
  CreditUsageLive.pipe(Layer26.provide(CreditLedgerLive))
);

// bench/ScoringPopulation.ts
import { SqlClient as SqlClient31 } from "@effect/sql";
import { Effect as Effect44 } from "effect";

// bench/SyntheticData.ts
var DIVISION_WEIGHTS = {
  "45": 20,
  "33": 10,
  "71": 8,
  "79": 6,
  "39": 5,
  "90": 5,
  "50": 5,
  "15": 5,
  "30": 4,
  "34": 4,
  "72": 4,
  "44": 4,
  "80": 3,
  "09": 3,
  "48": 3,
  "60": 3,
  "77": 3,
  "55": 2,
  "85": 2,
  "92": 1
};
var prng = (seed) => () => {
  seed = seed + 1831565813 | 0;
  let t = Math.imul(seed ^ seed >>> 15, 1 | seed);
  t = t + Math.imul(t ^ t >>> 7, 61 | t) ^ t;
  return ((t ^ t >>> 14) >>> 0) / 4294967296;
};
var syntheticDraws = (seed) => {
  const random = prng(seed);
  const pick = (items) => items[Math.floor(random() * items.length)];
  const entries = Object.entries(DIVISION_WEIGHTS);
  const total = entries.reduce((sum, [, w]) => sum + w, 0);
  const weightedDivision = () => {
    let r = random() * total;
    for (const [division, weight] of entries) {
      r -= weight;
      if (r < 0) return division;
    }
    return entries[0][0];
  };
  const logNormalValue = () => Math.round(Math.exp(10 + random() * 6) / 100) * 100;
  return { random, pick, weightedDivision, logNormalValue };
};

// bench/ScoringPopulation.ts
var specificWords = (labels) => {
  const frequency = /* @__PURE__ */ new Map();
  for (const label of labels) for (const w of new Set(words(label))) frequency.set(w, (frequency.get(w) ?? 0) + 1);
  return (label) => words(label).filter((w) => w.length >= 6 && !STOP_WORDS.has(w) && (frequency.get(w) ?? 0) <= labels.length / 100);
};
var seedPopulation = (options) => Effect44.gen(function* () {
  const sql = yield* SqlClient31.SqlClient;
  const { random, pick, weightedDivision, logNormalValue } = syntheticDraws(options.seed ?? 20260101);
  const cpv = yield* sql`SELECT code_full, level, label_ro FROM cpv_codes ORDER BY code_full`;
  const contentWords = specificWords(cpv.map((row) => row.label_ro));
  const byDivision = /* @__PURE__ */ new Map();
  for (const row of cpv) {
    const division = row.code_full.slice(0, 2);
    const entry = byDivision.get(division) ?? { watchable: [], tenderable: [] };
    if (row.level === "class" || row.level === "category") entry.watchable.push(row);
    if (row.level !== "division" && row.level !== "group") entry.tenderable.push(row);
    byDivision.set(division, entry);
  }
  const tenantIds = (yield* sql`
      INSERT INTO tenants (name, plan)
      SELECT 'Bench ' || n, 'consultant' FROM generate_series(1, ${options.tenants}::int) AS n
      RETURNING id`).map((row) => row.id);
  const companyNames = Array.from({ length: options.companies }, (_, i) => `Firma ${i} SRL`);
  const fiscalCodes = Array.from({ length: options.companies }, (_, i) => String(1e7 + i));
  const descriptions = [];
  const watchlistRows = [];
  for (let c = 0; c < options.companies; c++) {
    const divisions = [weightedDivision(), ...random() < 0.3 ? [weightedDivision()] : []];
    const labels = [];
    for (let w = 0; w < options.watchlistsPerCompany; w++) {
      const division = byDivision.get(pick(divisions));
      const codes = Array.from({ length: 1 + Math.floor(random() * 3) }, () => pick(division.watchable));
      labels.push(...codes.map((code) => code.label_ro));
      const candidates = codes.flatMap((code) => contentWords(code.label_ro));
      const keywords = candidates.length === 0 ? [] : [...new Set(Array.from({ length: 1 + Math.floor(random() * 2) }, () => pick(candidates)))];
      const ranged = random() < 0.5;
      watchlistRows.push({
        company: c,
        cpv: [...new Set(codes.map((code) => code.code_full))],
        keywords,
        min: ranged ? 1e4 : null,
        max: ranged ? 5e6 : null,
        minScore: 50 + Math.floor(random() * 21)
      });
    }
    descriptions.push(`Firm\u0103 specializat\u0103 \xEEn ${labels.slice(0, 4).join(", ").toLowerCase()}`);
  }
  const tenantOf = companyNames.map((_, i) => tenantIds[i % tenantIds.length]);
  const companyIds = (yield* sql`
      INSERT INTO companies (tenant_id, name, description, fiscal_code)
      SELECT * FROM unnest(${tenantOf}::uuid[], ${companyNames}::text[], ${descriptions}::text[], ${fiscalCodes}::text[])
      RETURNING id`).map((r) => r.id);
  yield* sql`
      INSERT INTO watchlists (tenant_id, company_id, name, cpv_codes, keywords, min_value, max_value, min_score)
      SELECT c.tenant_id, w.c, 'Watchlist', string_to_array(w.codes, ',')::char(10)[], string_to_array(w.kw, '|'),
             w.lo, w.hi, w.ms
      FROM unnest(${watchlistRows.map((w) => companyIds[w.company])}::uuid[], ${watchlistRows.map((w) => w.cpv.join(","))}::text[],
                  ${watchlistRows.map((w) => w.keywords.join("|"))}::text[], ${watchlistRows.map((w) => w.min)}::numeric[],
                  ${watchlistRows.map((w) => w.max)}::numeric[], ${watchlistRows.map((w) => w.minScore)}::smallint[])
        AS w(c, codes, kw, lo, hi, ms)
      JOIN companies c ON c.id = w.c`;
  const authorities = Array.from({ length: options.authorities }, (_, i) => ({
    name: `Prim\u0103ria ${i}`,
    normalizedName: `primaria ${i}`,
    fiscalCode: String(4e6 + i),
    county: "Cluj"
  }));
  const makeTender = (i, kind, publishDate) => {
    const division = byDivision.get(weightedDivision());
    const main = pick(division.tenderable);
    const additional = random() < 0.4 ? [pick(division.tenderable)] : [];
    const value = random() < 0.8 ? logNormalValue() : null;
    return {
      source: "bench",
      sourceNoticeId: `${kind}-${i}`,
      noticeType: kind,
      title: `${main.label_ro} - lot ${i % 7}`,
      description: `Achizi\u021Bie ${additional.map((a) => a.label_ro.toLowerCase()).join(", ")} conform caietului de sarcini`,
      mainCpv: main.code_full,
      additionalCpvs: additional.map((a) => a.code_full).filter((c) => c !== main.code_full),
      authority: pick(authorities),
      deadline: null,
      estimatedValueRon: value,
      estimatedValueEur: value === null ? null : Math.round(value / EUR_RON),
      publishDate: publishDate ?? new Date(Date.UTC(2026, 0, 1) + i * 6e4),
      sourceUrl: `https://e-licitatie.ro/bench/${kind}/${i}`,
      winnerFiscalCodes: kind === "award" ? [pick(fiscalCodes)] : []
    };
  };
  return { tenantIds, companyIds, makeTender };
});

// bench/scoring.ts
var COMPANIES = 5e3;
var WATCHLISTS_PER_COMPANY = 3;
var TENDERS = Number(process.env.SCORING_BENCH_TENDERS ?? 5e3);
var AWARDS = 2e3;
var AUTHORITIES = 400;
var elapsed = (start) => Number(process.hrtime.bigint() - start) / 1e9;
var program = Effect45.gen(function* () {
  const sql = yield* SqlClient32.SqlClient;
  yield* migrate;
  const { makeTender } = yield* seedPopulation({
    companies: COMPANIES,
    tenants: 1,
    watchlistsPerCompany: WATCHLISTS_PER_COMPANY,
    authorities: AUTHORITIES
  });
  const store = yield* TenderStore;
  yield* store.upsert(Array.from({ length: AWARDS }, (_, i) => makeTender(i, "award")));
  const newTenders = Array.from({ length: TENDERS }, (_, i) => makeTender(i, "contract"));
  yield* sql`ANALYZE`;
  const scoring = yield* ScoringService;
  const start = process.hrtime.bigint();
  const stored = yield* store.upsert(newTenders);
  const importSeconds = elapsed(start);
  const result = yield* scoring.scoreTenders(stored.inserted, { isNew: stored.inserted });
  const endToEnd = elapsed(start);
  const profiles = yield* sql`
    SELECT w.company_id, c.description, w.id, w.cpv_codes::text[] AS cpv, w.keywords AS kw,
           w.min_value::float8 AS lo, w.max_value::float8 AS hi, w.min_score AS ms
    FROM watchlists w JOIN companies c ON c.id = w.company_id`;
  const companies = /* @__PURE__ */ new Map();
  const grouped = /* @__PURE__ */ new Map();
  for (const p of profiles) grouped.set(p.company_id, [...grouped.get(p.company_id) ?? [], p]);
  for (const [id, rows] of grouped) {
    companies.set(
      id,
      prepareCompany({
        id,
        description: rows[0].description,
        history: [],
        watchlists: rows.map((r) => ({
          id: r.id,
          cpvCodes: r.cpv,
          keywords: r.kw,
          minValue: r.lo,
          maxValue: r.hi,
          authorityId: null,
          minScore: r.ms
        }))
      })
    );
  }
  const tenders = newTenders.map(
    (t, i) => prepareTender({
      id: String(i),
      title: t.title,
      description: t.description,
      mainCpv: t.mainCpv,
      additionalCpvs: t.additionalCpvs,
      authorityId: "a",
      valueRon: t.estimatedValueRon
    })
  );
  const stats = buildCorpusStats(tenders);
  const companyList = [...companies.values()];
  const pairs = 5e5;
  let sink = 0;
  const pureStart = process.hrtime.bigint();
  for (let n = 0; n < pairs; n++) {
    sink += scorePair(companyList[n % companyList.length], tenders[n * 7919 % tenders.length], stats).overallScore;
  }
  const pureSeconds = elapsed(pureStart);
  let candidateChecks = 0;
  const filterStart = process.hrtime.bigint();
  for (let n = 0; n < pairs; n++) {
    if (isCandidate(companyList[n % companyList.length], tenders[n * 7919 % tenders.length], stats))
      candidateChecks++;
  }
  const filterSeconds = elapsed(filterStart);
  const [counts] = yield* sql`
    SELECT (SELECT count(*)::int FROM tender_scores) AS scores, (SELECT count(*)::int FROM alerts) AS alerts,
           (SELECT count(*)::int FROM match_events) AS events`;
  const report = {
    machine: `${availableParallelism()} cores, node ${process.version}`,
    companies: COMPANIES,
    watchlists: COMPANIES * WATCHLISTS_PER_COMPANY,
    award_history: AWARDS,
    new_tenders: stored.inserted.length,
    end_to_end_seconds: Number(endToEnd.toFixed(2)),
    import_seconds: Number(importSeconds.toFixed(2)),
    scoring_seconds: Number((endToEnd - importSeconds).toFixed(2)),
    pairs_stored: result.scored,
    pairs_per_tender: Number((result.scored / TENDERS).toFixed(1)),
    alerts: result.alerts,
    events: result.events,
    end_to_end_pairs_per_second: Math.round(result.scored / (endToEnd - importSeconds)),
    pure_scorer_pairs_per_second: Math.round(pairs / pureSeconds),
    pure_candidate_filter_pairs_per_second: Math.round(pairs / filterSeconds),
    in_memory_candidate_share: Number((candidateChecks / pairs).toFixed(4)),
    rows_check: counts,
    checksum: sink % 1e3
  };
  console.log(JSON.stringify(report, null, 2));
});
var adminUrl = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
var databaseName = `bench_scoring_${randomBytes2(4).toString("hex")}`;
var urlOf = (name) => {
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
};
var admin = (statement2) => Effect45.flatMap(PgClient3.PgClient, (sql) => sql.unsafe(statement2)).pipe(
  Effect45.provide(PgClient3.layer({ url: Redacted2.make(adminUrl), maxConnections: 1 })),
  Effect45.scoped
);
await Effect45.runPromise(
  Effect45.acquireUseRelease(
    admin(`CREATE DATABASE "${databaseName}"`),
    () => program.pipe(
      Effect45.provide(
        Layer27.mergeAll(ScoringLive, TenderStoreLive).pipe(
          Layer27.provideMerge(PgClient3.layer({ url: Redacted2.make(urlOf(databaseName)), maxConnections: 4 }))
        )
      )
    ),
    // SCORING_BENCH_KEEP=1 keeps the database for EXPLAIN and the like (drop it by hand).
    () => process.env.SCORING_BENCH_KEEP === "1" ? Effect45.log(`kept database ${databaseName}`) : Effect45.orDie(admin(`DROP DATABASE IF EXISTS "${databaseName}" WITH (FORCE)`))
  ).pipe(
    Effect45.orDie,
    Logger.withMinimumLogLevel(process.env.SCORING_BENCH_DEBUG === "1" ? LogLevel.Debug : LogLevel.Info)
  )
);
