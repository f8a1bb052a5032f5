/* v4lconvert-mjpeg: libv4l2's MJPEG conversion (v4lconvert_convert, MJPEG to YU12) over JPEG files,
   the path syncscan takes when it has no decoder of its own; prints the CPU time per frame.

   Usage: LIBV4LCONTROL_CONTROLS=0 v4lconvert-mjpeg WIDTH HEIGHT REPEAT FILE.jpg...
   Every file is converted REPEAT times; output: "cpu_ms_per_frame=N frames=N". */
#include <libv4lconvert.h>
#include <linux/videodev2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double cpu_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
    if (argc < 5) { fprintf(stderr, "usage: %s WIDTH HEIGHT REPEAT FILE.jpg...\n", argv[0]); return 2; }
    int width = atoi(argv[1]), height = atoi(argv[2]), repeat = atoi(argv[3]), files = argc - 4;
    unsigned char **jpeg = calloc(files, sizeof *jpeg);
    size_t *size = calloc(files, sizeof *size);
    for (int i = 0; i < files; i++) {
        FILE *f = fopen(argv[4 + i], "rb");
        if (!f) { perror(argv[4 + i]); return 1; }
        fseek(f, 0, SEEK_END); size[i] = ftell(f); fseek(f, 0, SEEK_SET);
        jpeg[i] = malloc(size[i]);
        if (fread(jpeg[i], 1, size[i], f) != size[i]) { perror("fread"); return 1; }
        fclose(f);
    }
    struct v4lconvert_data *data = v4lconvert_create(-1);
    if (!data) { fprintf(stderr, "v4lconvert_create failed (set LIBV4LCONTROL_CONTROLS=0)\n"); return 1; }
    struct v4l2_format src = {.type = V4L2_BUF_TYPE_VIDEO_CAPTURE}, dst;
    src.fmt.pix.width = width; src.fmt.pix.height = height;
    src.fmt.pix.pixelformat = V4L2_PIX_FMT_MJPEG; src.fmt.pix.field = V4L2_FIELD_NONE;
    dst = src;
    dst.fmt.pix.pixelformat = V4L2_PIX_FMT_YUV420;
    dst.fmt.pix.bytesperline = width;
    dst.fmt.pix.sizeimage = width * height * 3 / 2;
    unsigned char *out = malloc(dst.fmt.pix.sizeimage);
    long frames = 0;
    double start = cpu_seconds();
    for (int r = 0; r < repeat; r++) {
        for (int i = 0; i < files; i++) {
            src.fmt.pix.sizeimage = size[i];
            if (v4lconvert_convert(data, &src, &dst, jpeg[i], size[i], out, dst.fmt.pix.sizeimage) < 0) {
                fprintf(stderr, "%s: %s\n", argv[4 + i], v4lconvert_get_error_message(data));
                return 1;
            }
            frames++;
        }
    }
    double elapsed = cpu_seconds() - start;
    printf("cpu_ms_per_frame=%.4f frames=%ld luma_checksum=%u\n", elapsed * 1000 / frames, frames, out[width * height / 2]);
    v4lconvert_destroy(data);
    return 0;
}
