/* libgpufp's C API, from C99: exact bits for every instruction family against values derived by
 * hand (named in each check) and against the lines of `gpufp gen` (the model through the command
 * line), the array calls of every width against the scalar call, every error path, and
 * concurrent calls from several threads sharing instructions.
 *
 * Usage: test_gpufp CASES_FILE   (lines `INSTR OPERAND... EXPECTED` as `gpufp gen` writes them)
 * Prints `N passed, M failed` and exits 1 if any check failed. */
#define _POSIX_C_SOURCE 200809L
#include <gpufp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int passed, failed;

#define CHECK(cond, ...)                                   \
    do {                                                   \
        if (cond) {                                        \
            passed++;                                      \
        } else {                                           \
            failed++;                                      \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
            fprintf(stderr, __VA_ARGS__);                  \
            fputc('\n', stderr);                           \
        }                                                  \
    } while (0)

static gpufp_instr *parse(const char *text) {
    gpufp_error err;
    gpufp_instr *i = gpufp_instr_parse(text, NULL, &err);
    if (!i) {
        fprintf(stderr, "cannot parse %s: %s\n", text, err.message);
        exit(2);
    }
    return i;
}

/* One case through the scalar call. */
static uint64_t eval1(const char *text, uint64_t a, uint64_t b, uint64_t c) {
    gpufp_instr *i = parse(text);
    uint64_t ops[3] = {a, b, c}, r = 0xDEAD;
    gpufp_status s = gpufp_eval(i, ops, gpufp_instr_inputs(i), &r);
    CHECK(s == GPUFP_OK, "%s: status %d", text, (int)s);
    gpufp_instr_free(i);
    return r;
}

static void hand_derived_values(void) {
    /* (1 + 2^-12)^2 - 1 = 2^-11 + 2^-24 exactly: 0x3A000000 plus 2^10 ulps of 2^-34. */
    CHECK(eval1("fma.rn.f32", 0x3F800800, 0x3F800800, 0xBF800000) == 0x3A000400, "fma");
    /* 1 + 2^-24 is a tie in f32: to even (1), up in .rp. */
    CHECK(eval1("add.rn.f32", 0x3F800000, 0x33800000, 0) == 0x3F800000, "add tie");
    CHECK(eval1("add.rp.f32", 0x3F800000, 0x33800000, 0) == 0x3F800001, "add.rp");
    /* 1/3 in f64 rounds down in .rn and .rz, up in .rp. */
    CHECK(eval1("div.rn.f64", 0x3FF0000000000000, 0x4008000000000000, 0) == 0x3FD5555555555555, "div");
    CHECK(eval1("div.rp.f64", 0x3FF0000000000000, 0x4008000000000000, 0) == 0x3FD5555555555556, "div.rp");
    CHECK(eval1("sqrt.rn.f64", 0x4010000000000000, 0, 0) == 0x4000000000000000, "sqrt 4");
    /* f16: 1 + 1 = 2; packed lanes independent, lane 0 low: 1+1 = 2, -1+1 = +0. */
    CHECK(eval1("add.rn.f16", 0x3C00, 0x3C00, 0) == 0x4000, "add.f16");
    CHECK(eval1("add.rn.f16x2", 0x3C003C00, 0xBC003C00, 0) == 0x00004000, "add.f16x2");
    /* bf16: 1 * 1.5 = 1.5 (0x3FC0); the tie 1 + 2^-8 rounds to even, 1. */
    CHECK(eval1("mul.rn.bf16", 0x3F80, 0x3FC0, 0) == 0x3FC0, "mul.bf16");
    CHECK(eval1("fma.rn.bf16", 0x3F80, 0x3F80, 0x3B80) == 0x3F80, "bf16 tie to even");
    /* .ftz: the least subnormal times 1 flushes to +0; .sat clamps 2 to 1. */
    CHECK(eval1("mul.rn.ftz.f32", 0x00000001, 0x3F800000, 0) == 0, "ftz");
    CHECK(eval1("add.rn.sat.f32", 0x3F800000, 0x3F800000, 0) == 0x3F800000, "sat");
    /* .relu of -1 is +0. */
    CHECK(eval1("fma.rn.relu.f16", 0xBC00, 0x3C00, 0x0000) == 0x0000, "relu");
    /* min/max: a NaN operand is ignored; .NaN gives the canonical NaN; max(-0, +0) = +0. */
    CHECK(eval1("min.f32", 0x7FC00000, 0x3F800000, 0) == 0x3F800000, "min NaN");
    CHECK(eval1("min.NaN.f32", 0x7FC00000, 0x3F800000, 0) == 0x7FFFFFFF, "min.NaN");
    CHECK(eval1("max.f32", 0x80000000, 0x00000000, 0) == 0x00000000, "max zeros");
    /* |min(1, -2)| with the sign of 1 XOR -2: -1. */
    CHECK(eval1("min.xorsign.abs.f32", 0x3F800000, 0xC0000000, 0) == 0xBF800000, "xorsign");
    /* copysign.f32 d, a, b: b with the sign of a (PTX ISA 9.7.3): -2. */
    CHECK(eval1("copysign.f32", 0xBF800000, 0x40000000, 0) == 0xC0000000, "copysign");
    CHECK(eval1("abs.f32", 0xBF800000, 0, 0) == 0x3F800000, "abs");
    CHECK(eval1("neg.f64", 0x3FF0000000000000, 0, 0) == 0xBFF0000000000000, "neg");
    CHECK(eval1("testp.finite.f32", 0x7F800000, 0, 0) == 0, "testp inf");
    CHECK(eval1("testp.subnormal.f64", 1, 0, 0) == 1, "testp subnormal");
    /* Approximate instructions where the exact value is representable: 2^1, 1/2, sqrt(4). */
    CHECK(eval1("ex2.approx.f32", 0x3F800000, 0, 0) == 0x40000000, "ex2");
    CHECK(eval1("rcp.approx.f32", 0x40000000, 0, 0) == 0x3F000000, "rcp");
    CHECK(eval1("sqrt.approx.f32", 0x40800000, 0, 0) == 0x40000000, "sqrt.approx");
    CHECK(eval1("ex2.approx.f16", 0x3C00, 0, 0) == 0x4000, "ex2.f16");
}

/* Every line of a `gpufp gen` file through the scalar call and the array call of its width. */
static void gen_file(const char *path) {
    FILE *f = fopen(path, "r");
    CHECK(f != NULL, "open %s", path);
    if (!f) return;
    char line[512], last[128] = "";
    gpufp_instr *i = NULL;
    int lines = 0;
    while (fgets(line, sizeof line, f)) {
        char text[128];
        unsigned long long w[4];
        int n = sscanf(line, "%127s %llx %llx %llx %llx", text, &w[0], &w[1], &w[2], &w[3]) - 2;
        if (n < 1) continue;
        if (strcmp(text, last) != 0) {
            gpufp_instr_free(i);
            i = parse(text);
            strcpy(last, text);
        }
        CHECK((size_t)n == gpufp_instr_inputs(i), "%s: %d operands", text, n);
        uint64_t ops[3] = {w[0], w[1], w[2]}, r = 0;
        uint64_t want = w[n];
        CHECK(gpufp_eval(i, ops, (size_t)n, &r) == GPUFP_OK && r == want,
              "%s: got %llx want %llx", line, (unsigned long long)r, (unsigned long long)want);
        gpufp_error err;
        gpufp_status s = GPUFP_ERR_INTERNAL;
        uint64_t got = 0;
        switch (gpufp_instr_width(i)) {
        case 16: {
            uint16_t a[3] = {(uint16_t)ops[0], (uint16_t)ops[1], (uint16_t)ops[2]}, o = 0;
            const uint16_t *p[3] = {&a[0], &a[1], &a[2]};
            s = gpufp_eval_u16(i, p, (size_t)n, 1, &o, &err);
            got = o;
            break;
        }
        case 32: {
            uint32_t a[3] = {(uint32_t)ops[0], (uint32_t)ops[1], (uint32_t)ops[2]}, o = 0;
            const uint32_t *p[3] = {&a[0], &a[1], &a[2]};
            s = gpufp_eval_u32(i, p, (size_t)n, 1, &o, &err);
            got = o;
            break;
        }
        default: {
            const uint64_t *p[3] = {&ops[0], &ops[1], &ops[2]};
            s = gpufp_eval_u64(i, p, (size_t)n, 1, &got, &err);
        }
        }
        CHECK(s == GPUFP_OK && got == want, "%s: array %llx", line, (unsigned long long)got);
        lines++;
    }
    gpufp_instr_free(i);
    fclose(f);
    CHECK(lines > 1000, "only %d lines in %s", lines, path);
}

/* Arrays of every width against the scalar call, on one and on several threads. */
static void arrays(void) {
    enum { N = 100003 };
    static uint16_t h[3][N], hr[N];
    static uint32_t s[3][N], sr[N], sr2[N];
    static uint64_t d[3][N], dr[N];
    uint64_t x = 88172645463325252ULL;
    for (int k = 0; k < 3; k++)
        for (int j = 0; j < N; j++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            h[k][j] = (uint16_t)x, s[k][j] = (uint32_t)x, d[k][j] = x;
        }
    const char *texts[] = {"fma.rn.ftz.f16", "fma.rz.sat.f32", "fma.rm.f64", "min.NaN.bf16x2",
                           "ex2.approx.ftz.f32", "testp.normal.f32", "mul.rn.f32x2"};
    for (size_t t = 0; t < sizeof texts / sizeof *texts; t++) {
        gpufp_options opts = {0};
        opts.threads = 4;
        gpufp_error err;
        gpufp_instr *one = parse(texts[t]);
        gpufp_instr *many = gpufp_instr_parse(texts[t], &opts, &err);
        size_t n = gpufp_instr_inputs(one);
        unsigned w = gpufp_instr_width(one);
        gpufp_status a = GPUFP_ERR_INTERNAL, b = GPUFP_ERR_INTERNAL;
        if (w == 16) {
            const uint16_t *p[3] = {h[0], h[1], h[2]};
            a = gpufp_eval_u16(one, p, n, N, hr, &err);
            b = GPUFP_OK;
        } else if (w == 32) {
            const uint32_t *p[3] = {s[0], s[1], s[2]};
            a = gpufp_eval_u32(one, p, n, N, sr, &err);
            b = gpufp_eval_u32(many, p, n, N, sr2, &err);
            CHECK(memcmp(sr, sr2, sizeof sr) == 0, "%s: threads differ", texts[t]);
        } else {
            const uint64_t *p[3] = {d[0], d[1], d[2]};
            a = gpufp_eval_u64(one, p, n, N, dr, &err);
            b = GPUFP_OK;
        }
        CHECK(a == GPUFP_OK && b == GPUFP_OK, "%s: %s", texts[t], err.message);
        int bad = 0;
        for (int j = 0; j < N; j += 97) {
            uint64_t ops[3] = {w == 16 ? h[0][j] : w == 32 ? s[0][j] : d[0][j],
                               w == 16 ? h[1][j] : w == 32 ? s[1][j] : d[1][j],
                               w == 16 ? h[2][j] : w == 32 ? s[2][j] : d[2][j]};
            uint64_t r;
            gpufp_eval(one, ops, n, &r);
            uint64_t got = w == 16 ? hr[j] : w == 32 ? sr[j] : dr[j];
            bad += got != r;
        }
        CHECK(bad == 0, "%s: %d elements differ from the scalar call", texts[t], bad);
        gpufp_instr_free(one);
        gpufp_instr_free(many);
    }
}

static void errors(void) {
    gpufp_error err;
    gpufp_options opts = {0};
    CHECK(gpufp_instr_parse("add.foo.f32", NULL, &err) == NULL && err.status == GPUFP_ERR_INSTR &&
              err.column == 4 && strstr(err.message, "unknown modifier `.foo`"),
          "bad modifier: %d %zu %s", (int)err.status, err.column, err.message);
    CHECK(gpufp_instr_parse("add.foo.f32", NULL, NULL) == NULL, "null err is allowed");
    opts.target = "sm_70";
    CHECK(gpufp_instr_parse("min.NaN.f32", &opts, &err) == NULL && err.status == GPUFP_ERR_INSTR &&
              strstr(err.message, "requires .target sm_80"),
          "target: %s", err.message);
    opts.target = "sm_x";
    CHECK(gpufp_instr_parse("add.f32", &opts, &err) == NULL && err.status == GPUFP_ERR_OPTIONS,
          "bad target: %s", err.message);
    opts.target = NULL;
    opts.ptx = "nine";
    CHECK(gpufp_instr_parse("add.f32", &opts, &err) == NULL && err.status == GPUFP_ERR_OPTIONS,
          "bad ptx: %s", err.message);
    opts.ptx = NULL;
    opts.operands = 3;
    CHECK(gpufp_instr_parse("add.f32", &opts, &err) == NULL && err.status == GPUFP_ERR_INSTR &&
              strstr(err.message, "takes 2 operand(s), got 3"),
          "count: %s", err.message);
    opts.operands = 0;
    gpufp_policy bad = {"ftz_tininess", "Never"};
    opts.policies = &bad;
    opts.n_policies = 1;
    CHECK(gpufp_instr_parse("add.f32", &opts, &err) == NULL && err.status == GPUFP_ERR_POLICY &&
              strstr(err.message, "`Never` is not a value of policy `ftz_tininess`"),
          "policy: %s", err.message);
    gpufp_policy unknown = {"nope", "x"};
    opts.policies = &unknown;
    CHECK(gpufp_instr_parse("add.f32", &opts, &err) == NULL && err.status == GPUFP_ERR_POLICY,
          "unknown policy");
    gpufp_policy null_name = {NULL, "x"};
    opts.policies = &null_name;
    CHECK(gpufp_instr_parse("add.f32", &opts, &err) == NULL && err.status == GPUFP_ERR_ARGUMENT,
          "null policy name");
    opts.policies = NULL;
    opts.n_policies = 0;
    CHECK(gpufp_instr_parse(NULL, NULL, &err) == NULL && err.status == GPUFP_ERR_ARGUMENT,
          "null text");
    CHECK(gpufp_instr_parse("add.f32\xff", NULL, &err) == NULL && err.status == GPUFP_ERR_ARGUMENT &&
              strstr(err.message, "UTF-8"),
          "not UTF-8: %s", err.message);

    gpufp_instr *i = parse("add.rn.f32");
    uint64_t ops[2] = {0x3F800000, 0x3F800000}, r;
    CHECK(gpufp_eval(i, ops, 1, &r) == GPUFP_ERR_ARGUMENT, "one operand for add");
    CHECK(gpufp_eval(i, NULL, 2, &r) == GPUFP_ERR_ARGUMENT, "null operands");
    CHECK(gpufp_eval(i, ops, 2, NULL) == GPUFP_ERR_ARGUMENT, "null result");
    CHECK(gpufp_eval(NULL, ops, 2, &r) == GPUFP_ERR_ARGUMENT, "null instr");
    uint64_t wide[2] = {0x13F800000ULL, 0};
    CHECK(gpufp_eval(i, wide, 2, &r) == GPUFP_ERR_ARGUMENT, "operand wider than 32 bits");
    gpufp_instr *d = parse("add.rn.f64");
    uint64_t w64[3] = {0, 0, 0}, r64[3];
    const uint64_t *pw[2] = {w64, w64};
    CHECK(gpufp_eval_u64(d, pw, 2, 3, r64, &err) == GPUFP_OK, "f64 array");
    gpufp_instr_free(d);
    d = parse("add.rn.f16");
    uint16_t w16[3] = {0x3C00, 0x3C00, 0x3C00}, r16[3];
    const uint16_t *p16[2] = {w16, w16};
    CHECK(gpufp_eval_u16(d, p16, 2, 3, r16, &err) == GPUFP_OK && r16[2] == 0x4000, "f16 array");
    gpufp_instr_free(d);
    uint16_t h[2] = {0, 0}, hr[2];
    const uint16_t *hp[2] = {h, h};
    CHECK(gpufp_eval_u16(i, hp, 2, 2, hr, &err) == GPUFP_ERR_ARGUMENT &&
              strstr(err.message, "takes 32-bit operands, got 16-bit words"),
          "width: %s", err.message);
    uint32_t s2[2] = {0, 0}, sr[2];
    const uint32_t *sp[2] = {s2, s2};
    CHECK(gpufp_eval_u32(i, sp, 1, 2, sr, &err) == GPUFP_ERR_ARGUMENT &&
              strstr(err.message, "takes 2 operand(s), got 1"),
          "array count: %s", err.message);
    CHECK(gpufp_eval_u32(i, sp, 2, 2, NULL, &err) == GPUFP_ERR_ARGUMENT, "null results");
    const uint32_t *nullp[2] = {s2, NULL};
    CHECK(gpufp_eval_u32(i, nullp, 2, 2, sr, &err) == GPUFP_ERR_ARGUMENT &&
              strstr(err.message, "operand 2 is null"),
          "null operand array: %s", err.message);
    CHECK(gpufp_eval_u32(i, sp, 2, 0, NULL, &err) == GPUFP_OK, "zero elements");
    uint64_t bits = 0;
    CHECK(gpufp_parse_operand(i, 1, "zz", &bits, &err) == GPUFP_ERR_OPERAND && err.index == 1 &&
              strstr(err.message, "operand 2: `zz` is not a number"),
          "literal: %s", err.message);
    CHECK(gpufp_parse_operand(i, 0, "1.5", &bits, &err) == GPUFP_OK && bits == 0x3FC00000,
          "1.5");
    char small[4];
    CHECK(gpufp_instr_text(i, small, sizeof small) == GPUFP_ERR_BUFFER && strcmp(small, "add") == 0,
          "text cut: %s", small);
    gpufp_instr_free(i);
    gpufp_instr_free(NULL);
    gpufp_string_free(NULL);
}

static void explanations_and_policies(void) {
    gpufp_error err;
    gpufp_instr *i = parse("mul.rn.ftz.f32");
    uint64_t ops[2] = {0x3F7FFFFE, 0x00800001};
    char buf[512];
    size_t needed = 0;
    const char *want =
        "0x00800000\nvalue: 1.17549435e-38\npolicy: depends on unverified policy `ftz_tininess`: "
        "with `BeforeRounding` the result is 0x00000000\n";
    CHECK(gpufp_explain(i, ops, 2, buf, sizeof buf, &needed, &err) == GPUFP_OK &&
              strcmp(buf, want) == 0 && needed == strlen(want) + 1,
          "explain: %s", buf);
    CHECK(gpufp_explain(i, ops, 2, buf, 8, &needed, &err) == GPUFP_ERR_BUFFER &&
              strcmp(buf, "0x00800") == 0 && needed == strlen(want) + 1,
          "explain cut: %s", buf);
    char *s = gpufp_explain_alloc(i, ops, 2, &err);
    CHECK(s && strcmp(s, want) == 0, "explain_alloc");
    gpufp_string_free(s);
    CHECK(gpufp_explain_alloc(i, ops, 1, &err) == NULL && err.status == GPUFP_ERR_ARGUMENT,
          "explain wrong count");
    gpufp_instr_free(i);

    gpufp_policy p = {"ftz_tininess", "BeforeRounding"};
    gpufp_options opts = {0};
    opts.policies = &p;
    opts.n_policies = 1;
    i = gpufp_instr_parse("mul.rn.ftz.f32", &opts, &err);
    uint64_t r = 1;
    CHECK(i && gpufp_eval(i, ops, 2, &r) == GPUFP_OK && r == 0, "policy result %llx",
          (unsigned long long)r);
    gpufp_instr_free(i);

    i = parse("min.xorsign.abs.NaN.f16x2");
    CHECK(gpufp_instr_text(i, buf, sizeof buf) == GPUFP_OK &&
              strcmp(buf, "min.NaN.xorsign.abs.f16x2") == 0,
          "canonical: %s", buf);
    uint64_t lanes = 0;
    CHECK(gpufp_parse_operand(i, 0, "{1.5, -2}", &lanes, &err) == GPUFP_OK && lanes == 0xC0003E00,
          "lanes %llx", (unsigned long long)lanes);
    gpufp_instr_free(i);
    i = parse("ex2.approx.f32");
    uint64_t x = 0xC3020000; /* -130 */
    s = gpufp_explain_alloc(i, &x, 1, &err);
    CHECK(s && strstr(s, "guarantee: within 2 ulp") && strstr(s, "MUFU.EX2"), "approx: %s", s);
    gpufp_string_free(s);
    gpufp_instr_free(i);
    i = parse("testp.number.f32");
    uint32_t a[2] = {0x7FC00000, 0x3F800000}, o[2] = {7, 7};
    const uint32_t *pa[1] = {a};
    CHECK(gpufp_eval_u32(i, pa, 1, 2, o, &err) == GPUFP_OK && o[0] == 0 && o[1] == 1, "testp array");
    CHECK(gpufp_instr_is_predicate(i), "predicate");
    gpufp_instr_free(i);
}

/* Threads sharing instructions: every thread's results equal the single-threaded ones. */
enum { TN = 4096, THREADS = 8 };
static gpufp_instr *shared[3];
static uint32_t in[3][TN], expect[3][TN];

static void *worker(void *arg) {
    int k = *(int *)arg;
    uint32_t out[TN];
    int bad = 0;
    for (int rep = 0; rep < 20; rep++) {
        gpufp_instr *i = shared[(k + rep) % 3];
        const uint32_t *p[3] = {in[0], in[1], in[2]};
        if (gpufp_eval_u32(i, p, gpufp_instr_inputs(i), TN, out, NULL) != GPUFP_OK) bad++;
        bad += memcmp(out, expect[(k + rep) % 3], sizeof out) != 0;
        uint64_t ops[3] = {in[0][rep], in[1][rep], in[2][rep]}, r;
        gpufp_eval(i, ops, gpufp_instr_inputs(i), &r);
        bad += r != expect[(k + rep) % 3][rep];
    }
    *(int *)arg = bad;
    return NULL;
}

static void threads(void) {
    const char *texts[3] = {"fma.rn.f32", "min.NaN.f32", "sqrt.approx.ftz.f32"};
    uint32_t x = 2463534242u;
    for (int k = 0; k < 3; k++)
        for (int j = 0; j < TN; j++) {
            x ^= x << 13, x ^= x >> 17, x ^= x << 5;
            in[k][j] = x;
        }
    for (int t = 0; t < 3; t++) {
        shared[t] = parse(texts[t]);
        const uint32_t *p[3] = {in[0], in[1], in[2]};
        gpufp_eval_u32(shared[t], p, gpufp_instr_inputs(shared[t]), TN, expect[t], NULL);
    }
    pthread_t th[THREADS];
    int args[THREADS];
    for (int k = 0; k < THREADS; k++) {
        args[k] = k;
        pthread_create(&th[k], NULL, worker, &args[k]);
    }
    int bad = 0;
    for (int k = 0; k < THREADS; k++) {
        pthread_join(th[k], NULL);
        bad += args[k];
    }
    CHECK(bad == 0, "%d differences across threads", bad);
    for (int t = 0; t < 3; t++) gpufp_instr_free(shared[t]);
}

int main(int argc, char **argv) {
    const char *v = gpufp_version();
    CHECK(v && v[0] >= '0' && v[0] <= '9', "version %s", v ? v : "(null)");
    hand_derived_values();
    if (argc > 1) gen_file(argv[1]);
    arrays();
    errors();
    explanations_and_policies();
    threads();
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
