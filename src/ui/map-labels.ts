/**
 * Where the names go on the map of counts. The largest places are always named: each tries right, left,
 * above and below its circle, then the same in a smaller size, then further out with a leader line, and
 * takes the first spot that covers no other name and stays in the frame. Smaller places are named after
 * them only where a name still fits beside the circle, so on a crowded map the small ones go unnamed.
 */

export interface MapCircle {
  name: string;
  count: number;
  x: number;
  y: number;
  r: number;
}

export interface MapLabel {
  name: string;
  /** The text's anchor point, its alignment and size (SVG text: x, y of the baseline, text-anchor, font-size). */
  x: number;
  y: number;
  anchor: 'start' | 'middle' | 'end';
  size: number;
  /** From the circle's edge to the name, when the name stands apart. */
  leader: { x1: number; y1: number; x2: number; y2: number } | null;
}

interface Box {
  left: number;
  top: number;
  right: number;
  bottom: number;
}

export const LABEL_SIZES = { normal: 10, small: 8.5 } as const;
/** How many of the largest places are always named, and how many names a map shows at most. */
export const ALWAYS_NAMED = 6;
export const MOST_NAMED = 14;

/** About the width of a name in the pane's sans-serif (0.6 em a letter, generous: a name must not run out of the frame). */
const widthOf = (name: string, size: number): number => name.length * size * 0.6;

function boxOf(label: MapLabel): Box {
  const width = widthOf(label.name, label.size);
  const left = label.anchor === 'start' ? label.x : label.anchor === 'end' ? label.x - width : label.x - width / 2;
  return { left, right: left + width, top: label.y - label.size * 0.8, bottom: label.y + label.size * 0.25 };
}

const overlaps = (a: Box, b: Box): boolean => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
const circleBox = (circle: MapCircle): Box => ({ left: circle.x - circle.r, right: circle.x + circle.r, top: circle.y - circle.r, bottom: circle.y + circle.r });

/** The spots to try for one circle's name, best first; `gap` pixels from the circle's edge. */
function candidates(circle: MapCircle, size: number, gap: number): MapLabel[] {
  const { name, x, y, r } = circle;
  const out = r + gap;
  const beside = y + size * 0.35;
  // Drawn from the circle's edge toward the name, so that it does not show through the circle.
  const leader = (x2: number, y2: number) => {
    if (gap <= 4) return null;
    const length = Math.hypot(x2 - x, y2 - y) || 1;
    return { x1: x + ((x2 - x) / length) * r, y1: y + ((y2 - y) / length) * r, x2, y2 };
  };
  return [
    { name, x: x + out, y: beside, anchor: 'start', size, leader: leader(x + out - 1, y) },
    { name, x: x - out, y: beside, anchor: 'end', size, leader: leader(x - out + 1, y) },
    { name, x, y: y - out, anchor: 'middle', size, leader: leader(x, y - out) },
    { name, x, y: y + out + size * 0.8, anchor: 'middle', size, leader: leader(x, y + out) },
  ];
}

/**
 * Names for the circles in a frame of `width` × `height`: the `ALWAYS_NAMED` largest wherever a spot
 * is free (or, failing every spot, beside the circle all the same), then the next largest up to
 * `MOST_NAMED` where a name fits beside the circle without covering a name or another circle.
 */
export function placeLabels(circles: readonly MapCircle[], width: number, height: number): MapLabel[] {
  const frame: Box = { left: 2, top: 2, right: width - 2, bottom: height - 2 };
  const inFrame = (box: Box): boolean => box.left >= frame.left && box.right <= frame.right && box.top >= frame.top && box.bottom <= frame.bottom;
  const largest = [...circles].sort((a, b) => b.count - a.count || (a.name < b.name ? -1 : 1));
  const placed: MapLabel[] = [];
  const boxes: Box[] = [];
  const free = (label: MapLabel, avoidCircles: readonly MapCircle[]): boolean => {
    const box = boxOf(label);
    return inFrame(box) && !boxes.some((other) => overlaps(box, other)) && !avoidCircles.some((circle) => overlaps(box, circleBox(circle)));
  };
  const take = (label: MapLabel): void => {
    placed.push(label);
    boxes.push(boxOf(label));
  };
  largest.forEach((circle, rank) => {
    if (placed.length === MOST_NAMED) return;
    const others = largest.filter((other) => other !== circle && other.r > 3);
    if (rank < ALWAYS_NAMED) {
      const tries = [
        ...candidates(circle, LABEL_SIZES.normal, 2),
        ...candidates(circle, LABEL_SIZES.small, 2),
        ...[12, 24, 36].flatMap((gap) => candidates(circle, LABEL_SIZES.small, gap)),
      ];
      const spot = tries.find((label) => free(label, others)) ?? tries.find((label) => free(label, [])) ?? tries[0];
      if (spot) take(spot);
      return;
    }
    const spot = candidates(circle, LABEL_SIZES.small, 2).find((label) => free(label, others));
    if (spot) take(spot);
  });
  return placed;
}
