;; The first pass of the vector scan (vector-scan.ts): an integer estimate of every allowed row's score
;; and the interval it is certain to lie in; rows whose interval can reach the floor are listed.
;;
;; Rows are int8 codes (8 per 8-byte chunk, zero-padded), the query int16 codes (8 per 16-byte chunk):
;; v128.load8x8_s widens a row chunk and i32x4.dot_i16x8_s multiplies and adds pairs, so a chunk costs
;; three instructions. Everything is in one function: Node 20's V8 does not inline WebAssembly calls,
;; and a call per row cost 15 %. Fully unrolled bodies made V8 spill registers (2-3x slower).
;; |sum| ≤ 127 · code · 8 · chunks < 2^31: query codes of 16 bits (32767) up to 64 chunks (512 dimensions),
;; fewer bits for wider rows (vector-scan.ts picks the code).
;;
;; The records are two blocks, read as two streams in row order. The head block holds, per row, 40
;; bytes: the codes of the first 4 chunks (32 dimensions), then f32 scale and error; the tail block
;; holds the other chunks' codes. The head's query codes stay in four registers for the whole scan.
;; estimate = scale · t · sum and, by Cauchy–Schwarz, |score − estimate| ≤ error · qNorm + constant
;; (error is the norm of the row's quantisation error; −∞ for a row without a vector, never listed).
;;
;; Two ways to say which rows: rows $from … $to − 1 where the byte at $mask + row is not 0 ($list = 0),
;; or entries $from … $to − 1 of the ascending u32 row list at $list (a selective filter's candidates: only
;; those rows are read). The list may lie under the outputs ($outRow = $list + 4 · $from): a row is listed
;; at or before the entry it was read from, after that entry was read.
(module
  (memory (export "memory") 1)
  (func (export "scan")
    (param $from i32) (param $to i32) (param $chunks i32) (param $head i32) (param $tail i32) (param $query i32)
    (param $mask i32) (param $list i32) (param $outRow i32) (param $outLow i32) (param $outHigh i32)
    (param $t f64) (param $qNorm f64) (param $constant f64) (param $floor f64)
    (result i32)
    (local $i i32) (local $row i32) (local $found i32) (local $h i32) (local $p i32) (local $q i32) (local $c i32)
    (local $tailStride i32) (local $q0 v128) (local $q1 v128) (local $q2 v128) (local $q3 v128) (local $acc v128)
    (local $acc2 v128) (local $scaleT f64) (local $estimate f64) (local $bound f64)
    ;; The head's query codes stay in registers for the whole scan.
    (local.set $q0 (v128.load (local.get $query)))
    (local.set $q1 (v128.load offset=16 (local.get $query)))
    (local.set $q2 (v128.load offset=32 (local.get $query)))
    (local.set $q3 (v128.load offset=48 (local.get $query)))
    (local.set $tailStride (i32.shl (i32.sub (local.get $chunks) (i32.const 4)) (i32.const 3)))
    (local.set $i (local.get $from))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $i) (local.get $to)))
        (if (local.get $list)
          (then (local.set $row (i32.load (i32.add (local.get $list) (i32.shl (local.get $i) (i32.const 2))))))
          (else
            ;; Rows the mask refuses are passed over in a loop of their own: a byte test a row.
            (block $allowed
              (loop $skip
                (br_if $allowed (i32.load8_u (i32.add (local.get $mask) (local.get $i))))
                (local.set $i (i32.add (local.get $i) (i32.const 1)))
                (br_if $done (i32.ge_u (local.get $i) (local.get $to)))
                (br $skip)))
            (local.set $row (local.get $i))))
        (local.set $h (i32.add (local.get $head) (i32.mul (local.get $row) (i32.const 40))))
        ;; The head, into two accumulators (independent additions).
        (local.set $acc
          (i32x4.add
            (i32x4.dot_i16x8_s (v128.load8x8_s (local.get $h)) (local.get $q0))
            (i32x4.dot_i16x8_s (v128.load8x8_s offset=16 (local.get $h)) (local.get $q2))))
        (local.set $acc2
          (i32x4.add
            (i32x4.dot_i16x8_s (v128.load8x8_s offset=8 (local.get $h)) (local.get $q1))
            (i32x4.dot_i16x8_s (v128.load8x8_s offset=24 (local.get $h)) (local.get $q3))))
        (local.set $scaleT (f64.mul (f64.promote_f32 (f32.load offset=32 (local.get $h))) (local.get $t)))
        (local.set $bound
          (f64.add (f64.mul (f64.promote_f32 (f32.load offset=36 (local.get $h))) (local.get $qNorm)) (local.get $constant)))
        (local.set $p (i32.add (local.get $tail) (i32.mul (local.get $row) (local.get $tailStride))))
        (local.set $q (i32.add (local.get $query) (i32.const 64)))
        (local.set $c (i32.const 4))
        ;; The tail: pairs, then an odd chunk.
        (block $pairsDone
          (loop $pair
            (br_if $pairsDone (i32.gt_u (i32.add (local.get $c) (i32.const 2)) (local.get $chunks)))
            (local.set $acc
              (i32x4.add (local.get $acc) (i32x4.dot_i16x8_s (v128.load8x8_s (local.get $p)) (v128.load (local.get $q)))))
            (local.set $acc2
              (i32x4.add (local.get $acc2) (i32x4.dot_i16x8_s (v128.load8x8_s offset=8 (local.get $p)) (v128.load offset=16 (local.get $q)))))
            (local.set $p (i32.add (local.get $p) (i32.const 16)))
            (local.set $q (i32.add (local.get $q) (i32.const 32)))
            (local.set $c (i32.add (local.get $c) (i32.const 2)))
            (br $pair)))
        (if (i32.lt_u (local.get $c) (local.get $chunks))
          (then
            (local.set $acc
              (i32x4.add (local.get $acc) (i32x4.dot_i16x8_s (v128.load8x8_s (local.get $p)) (v128.load (local.get $q)))))))
        (local.set $acc (i32x4.add (local.get $acc) (local.get $acc2)))
        (local.set $estimate
          (f64.mul (local.get $scaleT)
            (f64.convert_i32_s
              (i32.add
                (i32.add (i32x4.extract_lane 0 (local.get $acc)) (i32x4.extract_lane 1 (local.get $acc)))
                (i32.add (i32x4.extract_lane 2 (local.get $acc)) (i32x4.extract_lane 3 (local.get $acc)))))))
        (if (f64.ge (f64.add (local.get $estimate) (local.get $bound)) (local.get $floor))
          (then
            (i32.store (i32.add (local.get $outRow) (i32.shl (local.get $found) (i32.const 2))) (local.get $row))
            (f64.store (i32.add (local.get $outLow) (i32.shl (local.get $found) (i32.const 3)))
              (f64.sub (local.get $estimate) (local.get $bound)))
            (f64.store (i32.add (local.get $outHigh) (i32.shl (local.get $found) (i32.const 3)))
              (f64.add (local.get $estimate) (local.get $bound)))
            (local.set $found (i32.add (local.get $found) (i32.const 1)))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next)))
    (local.get $found))
)
