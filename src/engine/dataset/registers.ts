/**
 * Which register court keeps an organization's entry. German commercial registers are kept by a
 * limited set of Amtsgerichte — the seats below, per state (Berlin's is the Amtsgericht
 * Charlottenburg); Austria's Firmenbuch by the Landesgerichte (the Handelsgericht in Vienna);
 * Switzerland's commercial register by cantonal offices. The seats are real; which seat serves a given
 * municipality is approximated as the nearest seat of its state (documented as such).
 */
import type { Random } from '../random.js';
import { geography, type Place } from './geography.js';

/** Register-court seats per German state: municipality name (as in the geography), court name where it differs. */
const GERMAN_REGISTER_COURTS: Record<string, readonly (readonly [string, string?])[]> = {
  'Baden-Württemberg': [['Freiburg im Breisgau'], ['Mannheim'], ['Stuttgart'], ['Ulm']],
  Bayern: [
    ['Amberg'], ['Ansbach'], ['Aschaffenburg'], ['Augsburg'], ['Bamberg'], ['Bayreuth'], ['Coburg'], ['Deggendorf'],
    ['Fürth'], ['Hof'], ['Ingolstadt'], ['Kempten (Allgäu)'], ['Landshut'], ['Memmingen'], ['München'], ['Nürnberg'],
    ['Passau'], ['Regensburg'], ['Schweinfurt'], ['Straubing'], ['Traunstein'], ['Weiden i.d.OPf.'], ['Würzburg'],
  ],
  Berlin: [['Berlin', 'Amtsgericht Charlottenburg']],
  Brandenburg: [['Cottbus'], ['Frankfurt (Oder)'], ['Neuruppin'], ['Potsdam']],
  Bremen: [['Bremen']],
  Hamburg: [['Hamburg']],
  Hessen: [
    ['Bad Homburg vor der Höhe', 'Amtsgericht Bad Homburg v.d.Höhe'], ['Darmstadt'], ['Frankfurt am Main'], ['Friedberg (Hessen)'],
    ['Fritzlar'], ['Fulda'], ['Gießen'], ['Hanau'], ['Kassel'], ['Königstein', 'Amtsgericht Königstein im Taunus'], ['Korbach'],
    ['Limburg a. d. Lahn'], ['Marburg'], ['Offenbach am Main'], ['Wetzlar'], ['Wiesbaden'],
  ],
  'Mecklenburg-Vorpommern': [['Neubrandenburg'], ['Rostock'], ['Schwerin'], ['Stralsund']],
  Niedersachsen: [
    ['Aurich'], ['Braunschweig'], ['Göttingen'], ['Hannover'], ['Hildesheim'], ['Lüneburg'], ['Oldenburg (Oldenburg)'],
    ['Osnabrück'], ['Stade'], ['Tostedt'], ['Walsrode'],
  ],
  'Nordrhein-Westfalen': [
    ['Aachen'], ['Arnsberg'], ['Bad Oeynhausen'], ['Bielefeld'], ['Bochum'], ['Bonn'], ['Coesfeld'], ['Dortmund'], ['Duisburg'],
    ['Düren'], ['Düsseldorf'], ['Essen'], ['Gelsenkirchen'], ['Gütersloh'], ['Hagen'], ['Hamm'], ['Iserlohn'], ['Kleve'], ['Köln'],
    ['Krefeld'], ['Lemgo'], ['Mönchengladbach'], ['Münster'], ['Neuss'], ['Paderborn'], ['Recklinghausen'], ['Siegburg'],
    ['Siegen'], ['Steinfurt'], ['Wuppertal'],
  ],
  'Rheinland-Pfalz': [
    ['Bad Kreuznach'], ['Kaiserslautern'], ['Koblenz'], ['Landau in der Pfalz'], ['Ludwigshafen am Rhein'], ['Mainz'],
    ['Montabaur'], ['Trier'], ['Wittlich'], ['Zweibrücken'],
  ],
  Saarland: [['Saarbrücken']],
  Sachsen: [['Chemnitz'], ['Dresden'], ['Leipzig']],
  'Sachsen-Anhalt': [['Stendal']],
  'Schleswig-Holstein': [['Flensburg'], ['Kiel'], ['Lübeck'], ['Pinneberg']],
  Thüringen: [['Jena']],
};

const AUSTRIAN_COURTS: Record<string, string> = {
  Wien: 'Handelsgericht Wien',
  Niederösterreich: 'Landesgericht St. Pölten',
  Oberösterreich: 'Landesgericht Linz',
  Steiermark: 'Landesgericht für ZRS Graz',
  Kärnten: 'Landesgericht Klagenfurt',
  Salzburg: 'Landesgericht Salzburg',
  Tirol: 'Landesgericht Innsbruck',
  Vorarlberg: 'Landesgericht Feldkirch',
  Burgenland: 'Landesgericht Eisenstadt',
};

interface Seat {
  court: string;
  place: Place | null;
}

let seatsByState: Map<string, Seat[]> | null = null;

/** The seats of each state with their places from the geography (for distances). */
function germanSeats(): Map<string, Seat[]> {
  if (seatsByState) return seatsByState;
  const places = new Map<string, Place>();
  for (const place of geography().places.get('DE') ?? []) places.set(`${place.state ?? ''}/${place.municipality ?? ''}`, place);
  seatsByState = new Map(
    Object.entries(GERMAN_REGISTER_COURTS).map(([state, seats]) => [
      state,
      seats.map(([municipality, court]) => ({ court: court ?? `Amtsgericht ${municipality}`, place: places.get(`${state}/${municipality}`) ?? null })),
    ]),
  );
  return seatsByState;
}

/** Seats whose municipality the geography lacks (kept for the test that the table and the asset agree). */
export function unplacedRegisterCourts(): string[] {
  return [...germanSeats().values()].flat().filter((seat) => seat.place === null).map((seat) => seat.court);
}

function distance(a: Place, b: Place | null): number {
  if (!b || a.lat === null || a.lon === null || b.lat === null || b.lon === null) return Number.POSITIVE_INFINITY;
  const dLat = a.lat - b.lat;
  const dLon = (a.lon - b.lon) * Math.cos((a.lat * Math.PI) / 180);
  return dLat * dLat + dLon * dLon;
}

const nearestCourt = new WeakMap<Place, string>();

function germanCourt(place: Place, random: Random | null): string {
  const seats = germanSeats().get(place.state ?? '') ?? [];
  if (seats.length === 0) return 'Amtsgericht Charlottenburg';
  if (random) return random.pick(seats).court;
  let court = nearestCourt.get(place);
  if (!court) {
    court = seats.reduce((best, seat) => (distance(place, seat.place) < distance(place, best.place) ? seat : best)).court;
    nearestCourt.set(place, court);
  }
  return court;
}

/**
 * The court of a registration at `place`. With `random`, a later registration after a move within the
 * state; without, the court serving the place.
 */
export function registerCourt(place: Place, random: Random | null): { court: string } {
  switch (place.country_code) {
    case 'DE':
      return { court: germanCourt(place, random) };
    case 'AT':
      return { court: AUSTRIAN_COURTS[place.state ?? ''] ?? 'Handelsgericht Wien' };
    default:
      return { court: `Handelsregisteramt ${place.state ?? place.country}` };
  }
}
