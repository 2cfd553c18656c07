;; The first pass of the vector scan (vector-scan.ts): an integer estimate of every allowed row's score
;; and the interval it is certain to lie in; rows whose interval can reach the floor are listed.
;;
;; Rows are int8 codes (8 per 8-byte chunk, zero-padded), the query int16 codes (8 per 16-byte chunk):
;; v128.load8x8_s widens a row chunk and i32x4.dot_i16x8_s multiplies and adds pairs, so a chunk costs
;; three instructions. The loop body is two chunks into two accumulators: fully unrolled bodies made V8
;; spill registers (2-3x slower). Everything is in one function: Node 20's V8 does not inline
;; WebAssembly calls, and a call per row cost 15 %.
;; |sum| ≤ 127 · 32767 · 8 · chunks < 2^31 up to 64 chunks (512 dimensions; vector-scan.ts checks).
;;
;; A row's record is its codes, then f32 scale and f32 error (the norm of the row's quantisation error;
;; −∞ for a row without a vector, which is then never listed): one stream for the processor to prefetch.
;; estimate = scale · t · sum and, by Cauchy–Schwarz, |score − estimate| ≤ error · qNorm + constant.
(module
  (memory (export "memory") 1)
  (func (export "scan")
    (param $rows i32) (param $chunks i32) (param $data i32) (param $query i32) (param $mask i32)
    (param $outRow i32) (param $outLow i32) (param $outHigh i32)
    (param $t f64) (param $qNorm f64) (param $constant f64) (param $floor f64)
    (result i32)
    (local $row i32) (local $found i32) (local $p i32) (local $q i32) (local $c i32)
    (local $acc v128) (local $acc2 v128) (local $estimate f64) (local $bound f64)
    (local.set $p (local.get $data))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $row) (local.get $rows)))
        (if (i32.load8_u (i32.add (local.get $mask) (local.get $row)))
          (then
            ;; An odd chunk first, then pairs of chunks into two accumulators (independent additions).
            (local.set $q (local.get $query))
            (local.set $acc2 (v128.const i32x4 0 0 0 0))
            (if (result v128) (i32.and (local.get $chunks) (i32.const 1))
              (then
                (local.set $p (i32.add (local.get $p) (i32.const 8)))
                (local.set $q (i32.add (local.get $q) (i32.const 16)))
                (i32x4.dot_i16x8_s (v128.load8x8_s offset=0 (i32.sub (local.get $p) (i32.const 8))) (v128.load (local.get $query))))
              (else (v128.const i32x4 0 0 0 0)))
            (local.set $acc)
            (local.set $c (i32.shr_u (local.get $chunks) (i32.const 1)))
            (if (local.get $c)
              (then
                (loop $pair
                  (local.set $acc
                    (i32x4.add (local.get $acc)
                      (i32x4.dot_i16x8_s (v128.load8x8_s (local.get $p)) (v128.load (local.get $q)))))
                  (local.set $acc2
                    (i32x4.add (local.get $acc2)
                      (i32x4.dot_i16x8_s (v128.load8x8_s offset=8 (local.get $p)) (v128.load offset=16 (local.get $q)))))
                  (local.set $p (i32.add (local.get $p) (i32.const 16)))
                  (local.set $q (i32.add (local.get $q) (i32.const 32)))
                  (br_if $pair (local.tee $c (i32.sub (local.get $c) (i32.const 1)))))))
            (local.set $acc (i32x4.add (local.get $acc) (local.get $acc2)))
            ;; $p is now at the record's scale and error.
            (local.set $estimate
              (f64.mul
                (f64.mul (f64.promote_f32 (f32.load (local.get $p))) (local.get $t))
                (f64.convert_i32_s
                  (i32.add
                    (i32.add (i32x4.extract_lane 0 (local.get $acc)) (i32x4.extract_lane 1 (local.get $acc)))
                    (i32.add (i32x4.extract_lane 2 (local.get $acc)) (i32x4.extract_lane 3 (local.get $acc)))))))
            (local.set $bound
              (f64.add
                (f64.mul (f64.promote_f32 (f32.load offset=4 (local.get $p))) (local.get $qNorm))
                (local.get $constant)))
            (if (f64.ge (f64.add (local.get $estimate) (local.get $bound)) (local.get $floor))
              (then
                (i32.store (i32.add (local.get $outRow) (i32.shl (local.get $found) (i32.const 2))) (local.get $row))
                (f64.store (i32.add (local.get $outLow) (i32.shl (local.get $found) (i32.const 3)))
                  (f64.sub (local.get $estimate) (local.get $bound)))
                (f64.store (i32.add (local.get $outHigh) (i32.shl (local.get $found) (i32.const 3)))
                  (f64.add (local.get $estimate) (local.get $bound)))
                (local.set $found (i32.add (local.get $found) (i32.const 1)))))
            (local.set $p (i32.add (local.get $p) (i32.const 8))))
          (else
            (local.set $p
              (i32.add (local.get $p) (i32.add (i32.shl (local.get $chunks) (i32.const 3)) (i32.const 8))))))
        (local.set $row (i32.add (local.get $row) (i32.const 1)))
        (br $next)))
    (local.get $found)))
