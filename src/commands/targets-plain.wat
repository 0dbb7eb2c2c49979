;; The fast path of `mq targets --file` (targets-plain.ts): lines that are targets as they stand,
;; turned into the inside of a JSON array of strings, 16 bytes at a time (WebAssembly SIMD).
;;
;; expand(in, len, out) reads the `len` bytes at `in`: lines joined by line feeds, no line feed at
;; either end. It writes them at `out` with each line feed made `","` (the caller writes the outer
;; quotes) and returns where the output ends. It returns 0, having written nothing the caller keeps,
;; when any line is not a target as it stands, which the per-line rules in targets-file.ts then
;; handle:
;;   - a byte below 0x21 other than the line feed (a control character to escape, white space to trim)
;;   - a byte of 0x80 or more (not ASCII: decoded, and maybe Unicode white space, by the slow path)
;;   - `"` or `\` (to escape) or `#` (a comment, when it starts a line)
;;   - an empty line (two line feeds in a row, or one at either end)
;;
;; The caller leaves 16 bytes of room after the input and after the output's worst case (a line
;; feed becomes three bytes and follows at least one other byte, so at most 2 * len): a vector is
;; loaded and stored whole even where only part of it counts.
;;
;; Build: `npm run wasm` turns this file into targets-plain-wasm.ts; a unit test checks that the two agree.
(module
  (import "mq" "memory" (memory 1))
  (func (export "expand") (param $in i32) (param $len i32) (param $out i32) (result i32)
    (local $i i32) (local $o i32) (local $prev i32) (local $start i32) (local $p i32)
    (local $mask i32) (local $v v128) (local $b i32) (local $last i32)
    (local.set $o (local.get $out))
    ;; Where the last line feed was (-1: none yet, so one at 0 is an empty first line).
    (local.set $prev (i32.const -1))
    (local.set $last (i32.sub (local.get $len) (i32.const 16)))
    (block $tail
      (loop $vector
        (br_if $tail (i32.gt_s (local.get $i) (local.get $last)))
        (local.set $v (v128.load (i32.add (local.get $in) (local.get $i))))
        (if (v128.any_true
              (v128.or
                (v128.or
                  ;; below 0x21 and not a line feed
                  (v128.andnot (i8x16.lt_u (local.get $v) (i8x16.splat (i32.const 0x21)))
                               (i8x16.eq (local.get $v) (i8x16.splat (i32.const 0x0a))))
                  ;; 0x80 and above
                  (i8x16.lt_s (local.get $v) (i8x16.splat (i32.const 0))))
                (v128.or
                  ;; `"` or `#`
                  (i8x16.lt_u (i8x16.sub (local.get $v) (i8x16.splat (i32.const 0x22))) (i8x16.splat (i32.const 2)))
                  ;; `\`
                  (i8x16.eq (local.get $v) (i8x16.splat (i32.const 0x5c))))))
          (then (return (i32.const 0))))
        (local.set $mask (i8x16.bitmask (i8x16.eq (local.get $v) (i8x16.splat (i32.const 0x0a)))))
        (if (i32.eqz (local.get $mask))
          (then
            ;; No line feed: the 16 bytes as they are.
            (v128.store (local.get $o) (local.get $v))
            (local.set $o (i32.add (local.get $o) (i32.const 16)))
            (local.set $i (i32.add (local.get $i) (i32.const 16)))
            (br $vector)))
        ;; Each line feed in turn: the bytes before it (a whole vector stored, the output advanced
        ;; by the part that counts), then `","`.
        (local.set $start (local.get $i))
        (loop $feed
          (local.set $p (i32.add (local.get $i) (i32.ctz (local.get $mask))))
          (if (i32.eq (local.get $p) (i32.add (local.get $prev) (i32.const 1)))
            (then (return (i32.const 0))))
          (local.set $prev (local.get $p))
          (v128.store (local.get $o) (v128.load (i32.add (local.get $in) (local.get $start))))
          (local.set $o (i32.add (local.get $o) (i32.sub (local.get $p) (local.get $start))))
          ;; `","` (little-endian; the fourth byte is overwritten next)
          (i32.store (local.get $o) (i32.const 0x00222c22))
          (local.set $o (i32.add (local.get $o) (i32.const 3)))
          (local.set $start (i32.add (local.get $p) (i32.const 1)))
          (local.set $mask (i32.and (local.get $mask) (i32.sub (local.get $mask) (i32.const 1))))
          (br_if $feed (local.get $mask)))
        ;; The bytes after the vector's last line feed.
        (local.set $i (i32.add (local.get $i) (i32.const 16)))
        (v128.store (local.get $o) (v128.load (i32.add (local.get $in) (local.get $start))))
        (local.set $o (i32.add (local.get $o) (i32.sub (local.get $i) (local.get $start))))
        (br $vector)))
    ;; The last 0 to 15 bytes, one at a time, by the same rules.
    (block $done
      (loop $byte
        (br_if $done (i32.ge_s (local.get $i) (local.get $len)))
        (local.set $b (i32.load8_u (i32.add (local.get $in) (local.get $i))))
        (if (i32.eq (local.get $b) (i32.const 0x0a))
          (then
            (if (i32.eq (local.get $i) (i32.add (local.get $prev) (i32.const 1)))
              (then (return (i32.const 0))))
            (local.set $prev (local.get $i))
            (i32.store (local.get $o) (i32.const 0x00222c22))
            (local.set $o (i32.add (local.get $o) (i32.const 3))))
          (else
            (if (i32.or
                  (i32.or (i32.lt_u (local.get $b) (i32.const 0x21)) (i32.ge_u (local.get $b) (i32.const 0x80)))
                  (i32.or (i32.lt_u (i32.sub (local.get $b) (i32.const 0x22)) (i32.const 2))
                          (i32.eq (local.get $b) (i32.const 0x5c))))
              (then (return (i32.const 0))))
            (i32.store8 (local.get $o) (local.get $b))
            (local.set $o (i32.add (local.get $o) (i32.const 1)))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $byte)))
    ;; A line feed as the last byte is an empty last line.
    (if (i32.eq (local.get $prev) (i32.sub (local.get $len) (i32.const 1)))
      (then (return (i32.const 0))))
    (local.get $o)))
