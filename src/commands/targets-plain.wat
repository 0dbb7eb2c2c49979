;; The fast path of `mq targets --file` (targets-plain.ts): lines that are targets as they stand,
;; turned into the inside of a JSON array of strings, 16 bytes at a time (WebAssembly SIMD).
;;
;; expand(in, len, out) reads the `len` bytes at `in`: lines joined by line feeds (a carriage
;; return right before one, or at the very end, is part of the line break: Windows line ends), no
;; line feed at either end. It writes them at `out` with each line break made `","` (the caller
;; writes the outer quotes), sets the global `lines` to how many lines there were and returns where
;; the output ends. It returns 0, having written nothing the caller keeps, when any line is not a
;; target as it stands, which the per-line rules in targets-file.ts then handle:
;;   - a byte below 0x21 other than a line break (a control character to escape, white space to
;;     trim; a carriage return anywhere but before a line feed or at the end)
;;   - a byte of 0x80 or more (not ASCII: decoded, and maybe Unicode white space, by the slow path)
;;   - `"` or `\` (to escape) or `#` (a comment, when it starts a line)
;;   - an empty line (two line breaks in a row, or one at either end)
;;
;; The caller leaves 16 bytes of room after the input and after the output's worst case (a line
;; feed becomes three bytes and follows at least one other byte, so at most 2 * len): a vector is
;; loaded and stored whole even where only part of it counts.
;;
;; Build: `npm run wasm` turns this file into targets-plain-wasm.ts; a unit test checks that the two agree.
;; Locals: $prev is where the last line feed was (-1: none yet, so one at 0 is an empty first line);
;; $pend is 1 when the vector before ended in a carriage return (the next byte must be a line feed).
(module
  (import "mq" "memory" (memory 1))
  (global $lines (export "lines") (mut i32) (i32.const 0))
  ;; The output for the line feed at $p (the line before it emitted up to $o): `","`, with a
  ;; carriage return just before the line feed taken back. Returns the new output end, or 0 for an
  ;; empty line.
  (func $break (param $in i32) (param $p i32) (param $prev i32) (param $o i32) (result i32)
    (local $cr i32)
    ;; (Not read before the input: both sides of an i32.and are evaluated.)
    (if (i32.gt_s (local.get $p) (i32.const 0))
      (then
        (local.set $cr
          (i32.eq (i32.load8_u (i32.sub (i32.add (local.get $in) (local.get $p)) (i32.const 1))) (i32.const 0x0d)))))
    (if (i32.eq (i32.sub (local.get $p) (local.get $cr)) (i32.add (local.get $prev) (i32.const 1)))
      (then (return (i32.const 0))))
    (local.set $o (i32.sub (local.get $o) (local.get $cr)))
    ;; `","` (little-endian; the fourth byte is overwritten next)
    (i32.store (local.get $o) (i32.const 0x00222c22))
    (i32.add (local.get $o) (i32.const 3)))

  (func (export "expand") (param $in i32) (param $len i32) (param $out i32) (result i32)
    (local $i i32) (local $o i32) (local $prev i32) (local $start i32) (local $p i32)
    (local $lf i32) (local $cr i32) (local $pend i32) (local $v v128) (local $b i32) (local $last i32)
    (local $n i32)
    (local.set $o (local.get $out))
    (local.set $prev (i32.const -1))
    (local.set $last (i32.sub (local.get $len) (i32.const 16)))
    (block $tail
      (loop $vector
        (br_if $tail (i32.gt_s (local.get $i) (local.get $last)))
        (local.set $v (v128.load (i32.add (local.get $in) (local.get $i))))
        (if (v128.any_true
              (v128.or
                (v128.or
                  ;; below 0x21 and neither a line feed nor a carriage return
                  (v128.andnot
                    (v128.andnot (i8x16.lt_u (local.get $v) (i8x16.splat (i32.const 0x21)))
                                 (i8x16.eq (local.get $v) (i8x16.splat (i32.const 0x0a))))
                    (i8x16.eq (local.get $v) (i8x16.splat (i32.const 0x0d))))
                  ;; 0x80 and above
                  (i8x16.lt_s (local.get $v) (i8x16.splat (i32.const 0))))
                (v128.or
                  ;; `"` or `#`
                  (i8x16.lt_u (i8x16.sub (local.get $v) (i8x16.splat (i32.const 0x22))) (i8x16.splat (i32.const 2)))
                  ;; `\`
                  (i8x16.eq (local.get $v) (i8x16.splat (i32.const 0x5c))))))
          (then (return (i32.const 0))))
        (local.set $lf (i8x16.bitmask (i8x16.eq (local.get $v) (i8x16.splat (i32.const 0x0a)))))
        (local.set $cr (i8x16.bitmask (i8x16.eq (local.get $v) (i8x16.splat (i32.const 0x0d)))))
        ;; Every carriage return is followed by a line feed: in this vector, or first in the next.
        (if (i32.or
              (i32.and (i32.and (i32.shl (local.get $cr) (i32.const 1)) (i32.const 0xffff))
                       (i32.xor (local.get $lf) (i32.const -1)))
              (i32.and (local.get $pend) (i32.xor (local.get $lf) (i32.const 1))))
          (then (return (i32.const 0))))
        (local.set $pend (i32.shr_u (local.get $cr) (i32.const 15)))
        (if (i32.eqz (local.get $lf))
          (then
            ;; No line feed: the 16 bytes as they are.
            (v128.store (local.get $o) (local.get $v))
            (local.set $o (i32.add (local.get $o) (i32.const 16)))
            (local.set $i (i32.add (local.get $i) (i32.const 16)))
            (br $vector)))
        ;; Each line feed in turn: the bytes before it (a whole vector stored, the output advanced
        ;; by the part that counts), then the line break.
        (local.set $start (local.get $i))
        (loop $feed
          (local.set $p (i32.add (local.get $i) (i32.ctz (local.get $lf))))
          (v128.store (local.get $o) (v128.load (i32.add (local.get $in) (local.get $start))))
          (local.set $o (call $break (local.get $in) (local.get $p) (local.get $prev)
                          (i32.add (local.get $o) (i32.sub (local.get $p) (local.get $start)))))
          (if (i32.eqz (local.get $o)) (then (return (i32.const 0))))
          (local.set $prev (local.get $p))
          (local.set $n (i32.add (local.get $n) (i32.const 1)))
          (local.set $start (i32.add (local.get $p) (i32.const 1)))
          (local.set $lf (i32.and (local.get $lf) (i32.sub (local.get $lf) (i32.const 1))))
          (br_if $feed (local.get $lf)))
        ;; The bytes after the vector's last line feed.
        (local.set $i (i32.add (local.get $i) (i32.const 16)))
        (v128.store (local.get $o) (v128.load (i32.add (local.get $in) (local.get $start))))
        (local.set $o (i32.add (local.get $o) (i32.sub (local.get $i) (local.get $start))))
        (br $vector)))
    ;; The last 0 to 15 bytes, one at a time, by the same rules.
    (if (i32.and (local.get $pend) (i32.lt_s (local.get $i) (local.get $len)))
      (then
        (if (i32.ne (i32.load8_u (i32.add (local.get $in) (local.get $i))) (i32.const 0x0a))
          (then (return (i32.const 0))))))
    (block $done
      (loop $byte
        (br_if $done (i32.ge_s (local.get $i) (local.get $len)))
        (local.set $b (i32.load8_u (i32.add (local.get $in) (local.get $i))))
        (if (i32.eq (local.get $b) (i32.const 0x0a))
          (then
            (local.set $o (call $break (local.get $in) (local.get $i) (local.get $prev) (local.get $o)))
            (if (i32.eqz (local.get $o)) (then (return (i32.const 0))))
            (local.set $prev (local.get $i))
            (local.set $n (i32.add (local.get $n) (i32.const 1))))
          (else
            (if (i32.eq (local.get $b) (i32.const 0x0d))
              (then
                ;; Only before a line feed, or as the last byte.
                (if (i32.and
                      (i32.lt_s (i32.add (local.get $i) (i32.const 1)) (local.get $len))
                      (i32.ne (i32.load8_u (i32.add (i32.add (local.get $in) (local.get $i)) (i32.const 1))) (i32.const 0x0a)))
                  (then (return (i32.const 0)))))
              (else
                (if (i32.or
                      (i32.or (i32.lt_u (local.get $b) (i32.const 0x21)) (i32.ge_u (local.get $b) (i32.const 0x80)))
                      (i32.or (i32.lt_u (i32.sub (local.get $b) (i32.const 0x22)) (i32.const 2))
                              (i32.eq (local.get $b) (i32.const 0x5c))))
                  (then (return (i32.const 0))))))
            (i32.store8 (local.get $o) (local.get $b))
            (local.set $o (i32.add (local.get $o) (i32.const 1)))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $byte)))
    ;; A line feed as the last byte is an empty last line; a carriage return there ends the last
    ;; line (taken back), which must not be empty.
    (if (i32.eq (local.get $prev) (i32.sub (local.get $len) (i32.const 1)))
      (then (return (i32.const 0))))
    (if (i32.eq (i32.load8_u (i32.sub (i32.add (local.get $in) (local.get $len)) (i32.const 1))) (i32.const 0x0d))
      (then
        (if (i32.eq (i32.sub (local.get $len) (i32.const 1)) (i32.add (local.get $prev) (i32.const 1)))
          (then (return (i32.const 0))))
        (local.set $o (i32.sub (local.get $o) (i32.const 1)))))
    (global.set $lines (i32.add (local.get $n) (i32.const 1)))
    (local.get $o)))
