import type { Clock } from '../../clock.js';
import type { Database, Executor } from '../../db/connection.js';
import { invalid, type ErrorItem } from '../../domain/errors.js';
import { canonicalIpOrCidr, enclosingEntries, entryShape } from './ip.js';
import { antifraudRepository, IP_COUNTRIES_KEY } from './repository.js';

/**
 * Where an IP address is: an ISO 3166-1 alpha-2 code, or null when unknown (the
 * ip_country_mismatch rule then does not fire). These machines have no GeoIP database, so the
 * default implementation answers from ranges the operator configures; a real deployment would
 * plug a GeoIP database (MaxMind, IP2Location) in behind this interface.
 */
export interface IpCountryResolver {
  countryOf(ip: string): string | null;
  /**
   * Optional: brings a table kept in the database up to date before `countryOf`. The engine awaits
   * it on the assessment's executor (on SQLite a second connection would wait for the caller's
   * transaction forever).
   */
  refresh?(executor: Executor): Promise<void>;
}

export interface IpCountryRange {
  cidr: string;
  country: string;
}

/** The officially assigned ISO 3166-1 alpha-2 codes (249). */
const ISO_COUNTRIES = new Set(
  ('AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BV BW BY BZ ' +
    'CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI FJ FK FM FO FR ' +
    'GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE JM JO JP ' +
    'KE KG KH KI KM KN KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR MS MT ' +
    'MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY QA RE RO RS RU RW ' +
    'SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO TR TT TV TW TZ UA UG ' +
    'UM US UY UZ VA VC VE VG VI VN VU WF WS YE YT ZA ZM ZW').split(' '),
);

export const isIsoCountry = (code: string) => ISO_COUNTRIES.has(code);

/** The table in memory: canonical entry -> country, and the prefix lengths in use per family. */
class RangeTable {
  readonly byEntry = new Map<string, string>();
  readonly lengths = { ipv4: [] as number[], ipv6: [] as number[] };

  constructor(readonly ranges: IpCountryRange[]) {
    const lengths = { ipv4: new Set<number>(), ipv6: new Set<number>() };
    for (const { cidr, country } of ranges) {
      this.byEntry.set(cidr, country);
      const { family, bits } = entryShape(cidr);
      lengths[family].add(bits);
    }
    this.lengths.ipv4 = [...lengths.ipv4].sort((a, b) => b - a);
    this.lengths.ipv6 = [...lengths.ipv6].sort((a, b) => b - a);
  }

  /** Longest prefix wins: a /24 carved out of a /8 answers for its addresses. */
  lookup(ip: string): string | null {
    if (this.byEntry.size === 0) return null;
    for (const entry of enclosingEntries(ip, this.lengths)) {
      const country = this.byEntry.get(entry);
      if (country) return country;
    }
    return null;
  }
}

/**
 * Another instance may replace the table: 5 s bounds how long this one answers from the old
 * table, while sparing every payment a query.
 */
export const IP_COUNTRIES_TTL_MS = 5_000;

/** The default resolver: operator-configured ranges, kept as JSON in `settings`. */
export class ConfiguredIpCountries implements IpCountryResolver {
  private table = new RangeTable([]);
  private expiresAt = 0;

  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
  ) {}

  countryOf(ip: string): string | null {
    return this.table.lookup(ip);
  }

  async refresh(executor: Executor): Promise<void> {
    // Wall clock: cache freshness, not business time.
    if (this.expiresAt > this.clock.wallNow().getTime()) return;
    this.adopt(await this.load(executor));
  }

  async get(): Promise<{ ranges: IpCountryRange[] }> {
    const ranges = await this.load(this.database.db);
    this.adopt(ranges);
    return { ranges };
  }

  /** Replaces the whole table. Every bad entry is reported, tagged with its index. */
  async replace(input: IpCountryRange[]): Promise<{ ranges: IpCountryRange[] }> {
    const errors: ErrorItem[] = [];
    const seen = new Map<string, number>();
    const ranges = input.map(({ cidr, country }, i) => {
      const entry = canonicalIpOrCidr(cidr);
      const code = country.trim().toUpperCase();
      if (!entry) errors.push({ tag: `ranges[${i}].cidr`, description: 'cidr must be an IPv4 or IPv6 address or CIDR range.' });
      else if (seen.has(entry)) errors.push({ tag: `ranges[${i}].cidr`, description: `cidr repeats the range of ranges[${seen.get(entry)}].` });
      else seen.set(entry, i);
      if (!isIsoCountry(code)) errors.push({ tag: `ranges[${i}].country`, description: 'country must be an ISO 3166-1 alpha-2 code.' });
      return { cidr: entry ?? cidr, country: code };
    });
    if (errors.length > 0) throw invalid(errors);
    await antifraudRepository.putSetting(this.database.db, IP_COUNTRIES_KEY, JSON.stringify(ranges));
    this.adopt(ranges);
    return { ranges };
  }

  private async load(executor: Executor): Promise<IpCountryRange[]> {
    const stored = await antifraudRepository.findSetting(executor, IP_COUNTRIES_KEY);
    return stored ? (JSON.parse(stored) as IpCountryRange[]) : [];
  }

  private adopt(ranges: IpCountryRange[]): void {
    this.table = new RangeTable(ranges);
    this.expiresAt = this.clock.wallNow().getTime() + IP_COUNTRIES_TTL_MS;
  }
}
