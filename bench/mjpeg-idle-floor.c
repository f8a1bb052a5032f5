/* mjpeg-idle-floor: what deciding an MJPEG frame's idleness can cost at least, for bench/idle.py —
 * the bare library calls on the same camera JPEGs, one thread, no pacing, each way in turn:
 *   full-grey    tjDecompress2 to TJPF_GRAY at full size (what a scanned frame costs to decode)
 *   eighth-grey  tjDecompress2 to TJPF_GRAY at 1/8 scale (what presentation mode's picture costs)
 *   coefficients jpeg_read_coefficients: Huffman-decodes every block of every component into
 *                coefficient arrays, no inverse DCT, no colour work (entropy decoding alone, plus
 *                storing the coefficients)
 *   eighth-rows-N  libjpeg at 1/8 scale to JCS_GRAYSCALE, reading the first N/8 of the output rows,
 *                then jpeg_abort_decompress (the price scales with the entropy-coded data consumed)
 *   header       tjDecompressHeader3 only
 *   scan-ff      memchr for every 0xFF byte of the file (touching the compressed bytes once)
 * Each way runs over every file, REPEAT times; prints the thread's CPU (CLOCK_THREAD_CPUTIME_ID) per
 * frame, the best of the repeats (the machine is shared), and the mean file size.
 *   usage: mjpeg-idle-floor REPEAT FILE.jpg...
 *   build: cc -O2 -o mjpeg-idle-floor mjpeg-idle-floor.c $(pkg-config --cflags --libs libturbojpeg libjpeg) */
#include <stdio.h>
#include <jpeglib.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <turbojpeg.h>

static double thread_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static unsigned char *read_file(const char *path, unsigned long *size) {
    FILE *f = fopen(path, "rb");
    if (!f) { perror(path); exit(2); }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *bytes = malloc(n > 0 ? n : 1);
    if (!bytes || fread(bytes, 1, n, f) != (size_t)n) { fprintf(stderr, "%s: read failed\n", path); exit(2); }
    fclose(f);
    *size = n;
    return bytes;
}

struct fail { struct jpeg_error_mgr mgr; jmp_buf jump; };
static void on_error(j_common_ptr cinfo) { longjmp(((struct fail *)cinfo->err)->jump, 1); }
static void on_message(j_common_ptr cinfo, int level) { (void)cinfo; (void)level; }

static int files;
static unsigned char **jpegs;
static unsigned long *sizes;
static unsigned char *out;
static tjhandle tj;
static struct jpeg_decompress_struct cinfo;
static struct fail err;
static volatile unsigned long sink;

static void full_grey(int i) {
    if (tjDecompress2(tj, jpegs[i], sizes[i], out, 1280, 1280, 720, TJPF_GRAY, 0) != 0) { fprintf(stderr, "%s\n", tjGetErrorStr2(tj)); exit(1); }
}

static void eighth_grey(int i) {
    if (tjDecompress2(tj, jpegs[i], sizes[i], out, 160, 160, 90, TJPF_GRAY, 0) != 0) { fprintf(stderr, "%s\n", tjGetErrorStr2(tj)); exit(1); }
}

static void header(int i) {
    int w, h, s, c;
    tjDecompressHeader3(tj, jpegs[i], sizes[i], &w, &h, &s, &c);
    sink += w;
}

static void scan_ff(int i) {
    const unsigned char *p = jpegs[i], *end = p + sizes[i];
    unsigned long n = 0;
    while ((p = memchr(p, 0xFF, end - p))) { n++; p++; }
    sink += n;
}

static void coefficients(int i) {
    if (setjmp(err.jump)) { fprintf(stderr, "libjpeg failed\n"); exit(1); }
    jpeg_mem_src(&cinfo, jpegs[i], sizes[i]);
    jpeg_read_header(&cinfo, TRUE);
    jvirt_barray_ptr *arrays = jpeg_read_coefficients(&cinfo);
    sink += (unsigned long)arrays;
    jpeg_finish_decompress(&cinfo);
}

static int rows_eighths = 8;
static void eighth_rows(int i) {
    if (setjmp(err.jump)) { fprintf(stderr, "libjpeg failed\n"); exit(1); }
    jpeg_mem_src(&cinfo, jpegs[i], sizes[i]);
    jpeg_read_header(&cinfo, TRUE);
    cinfo.out_color_space = JCS_GRAYSCALE;
    cinfo.scale_num = 1;
    cinfo.scale_denom = 8;
    jpeg_start_decompress(&cinfo);
    unsigned int want = cinfo.output_height * rows_eighths / 8;
    while (cinfo.output_scanline < want) {
        JSAMPROW row = out + cinfo.output_scanline * cinfo.output_width;
        jpeg_read_scanlines(&cinfo, &row, 1);
    }
    jpeg_abort_decompress(&cinfo);
}

static void run(const char *name, void (*way)(int), int repeat) {
    double best = 1e9;
    for (int r = 0; r < repeat; r++) {
        double t0 = thread_seconds();
        for (int i = 0; i < files; i++) way(i);
        double per = (thread_seconds() - t0) / files;
        if (per < best) best = per;
    }
    printf("%-16s %.3f ms/frame\n", name, best * 1000);
}

int main(int argc, char **argv) {
    if (argc < 3) { fprintf(stderr, "usage: %s REPEAT FILE.jpg...\n", argv[0]); return 2; }
    int repeat = atoi(argv[1]);
    files = argc - 2;
    jpegs = malloc(sizeof *jpegs * files);
    sizes = malloc(sizeof *sizes * files);
    double total = 0;
    for (int i = 0; i < files; i++) { jpegs[i] = read_file(argv[i + 2], &sizes[i]); total += sizes[i]; }
    out = malloc(1280 * 720);
    tj = tjInitDecompress();
    cinfo.err = jpeg_std_error(&err.mgr);
    err.mgr.error_exit = on_error;
    err.mgr.emit_message = on_message;
    jpeg_create_decompress(&cinfo);
    printf("files %d, mean size %.0f bytes\n", files, total / files);
    run("header", header, repeat);
    run("scan-ff", scan_ff, repeat);
    run("full-grey", full_grey, repeat);
    run("eighth-grey", eighth_grey, repeat);
    run("coefficients", coefficients, repeat);
    for (rows_eighths = 2; rows_eighths <= 8; rows_eighths *= 2) {
        char name[32];
        snprintf(name, sizeof name, "eighth-rows-%d/8", rows_eighths);
        run(name, eighth_rows, repeat);
    }
    return 0;
}
