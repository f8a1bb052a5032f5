#ifndef CGSTREAMER_SHIM_H
#define CGSTREAMER_SHIM_H
/* Header-only shim over GStreamer 1.22 (core, app, video): Swift cannot expand GStreamer's
 * function-like macros (GST_BUFFER_PTS, GST_VIDEO_FRAME_PLANE_DATA, GST_IS_…) nor call its
 * variadic functions (g_object_set), so each step gets a prefixed static inline function.
 * Errors: NULL or a negative value, with a message in `*error` (g_free'd by the caller through
 * syncscan_gst_free) when the call gives one. */
#include <stdint.h>
#include <string.h>
#include <gst/gst.h>
#include <gst/app/gstappsink.h>
#include <gst/video/video.h>

/* gst_init_check; 0 on success, -1 with *error set. Safe to call more than once. */
static inline int syncscan_gst_init(char **error) {
    GError *e = NULL;
    if (gst_init_check(NULL, NULL, &e)) return 0;
    *error = g_strdup(e ? e->message : "gst_init_check failed");
    if (e) g_error_free(e);
    return -1;
}

static inline void syncscan_gst_free(void *p) { g_free(p); }

/* gst_version_string(), to be freed with syncscan_gst_free. */
static inline char *syncscan_gst_version_string(void) { return gst_version_string(); }

/* Whether an element factory is installed (gst_element_factory_find). */
static inline int syncscan_gst_has_element(const char *name) {
    GstElementFactory *f = gst_element_factory_find(name);
    if (!f) return 0;
    gst_object_unref(f);
    return 1;
}

/* Loads the installed plugin `name` now (gst_plugin_load_by_name); 1 when it is loaded, 0 when
 * there is no such plugin or it failed to load. */
static inline int syncscan_gst_load_plugin(const char *name) {
    GstPlugin *plugin = gst_plugin_load_by_name(name);
    if (!plugin) return 0;
    gst_object_unref(plugin);
    return 1;
}

/* 1 when the installed plugin `name` is loaded (gst_registry_find_plugin, gst_plugin_is_loaded). */
static inline int syncscan_gst_plugin_is_loaded(const char *name) {
    GstPlugin *plugin = gst_registry_find_plugin(gst_registry_get(), name);
    if (!plugin) return 0;
    int loaded = gst_plugin_is_loaded(plugin) ? 1 : 0;
    gst_object_unref(plugin);
    return loaded;
}

/* Whether an installed element handles URIs of `protocol` as a source (gst_uri_protocol_is_supported). */
static inline int syncscan_gst_has_uri_source(const char *protocol) {
    return gst_uri_protocol_is_supported(GST_URI_SRC, protocol) ? 1 : 0;
}

/* gst_parse_launch of `description`, which names its sink "syncscan"; NULL with *error set. */
static inline GstElement *syncscan_gst_parse_launch(const char *description, char **error) {
    GError *e = NULL;
    GstElement *pipeline = gst_parse_launch(description, &e);
    if (e) {
        *error = g_strdup(e->message);
        g_error_free(e);
        if (pipeline) gst_object_unref(pipeline);
        return NULL;
    }
    return pipeline;
}

/* The appsink named "syncscan" in `pipeline` (a new reference), set to drop nothing itself and
 * hold at most `max_buffers` samples; NULL when there is none. */
static inline GstElement *syncscan_gst_appsink(GstElement *pipeline, unsigned max_buffers) {
    GstElement *sink = gst_bin_get_by_name(GST_BIN(pipeline), "syncscan");
    if (!sink) return NULL;
    if (!GST_IS_APP_SINK(sink)) { gst_object_unref(sink); return NULL; }
    gst_app_sink_set_max_buffers(GST_APP_SINK(sink), max_buffers);
    gst_app_sink_set_drop(GST_APP_SINK(sink), FALSE);
    return sink;
}

/* gst_element_set_state; returns the GstStateChangeReturn (GST_STATE_CHANGE_FAILURE = 0). */
static inline int syncscan_gst_set_playing(GstElement *pipeline) { return gst_element_set_state(pipeline, GST_STATE_PLAYING); }
static inline int syncscan_gst_set_null(GstElement *pipeline) { return gst_element_set_state(pipeline, GST_STATE_NULL); }

static inline void syncscan_gst_unref(GstElement *element) { gst_object_unref(element); }

/* What an ERROR message's GError says went wrong, from its domain and code. */
#define SYNCSCAN_GST_CAUSE_OTHER 0
#define SYNCSCAN_GST_CAUSE_NOT_AUTHORIZED 1  /* GST_RESOURCE_ERROR_NOT_AUTHORIZED: RTSP or HTTP 401 */
#define SYNCSCAN_GST_CAUSE_NOT_FOUND 2       /* GST_RESOURCE_ERROR_NOT_FOUND: RTSP or HTTP 404, no such file */
#define SYNCSCAN_GST_CAUSE_CANNOT_OPEN 3     /* GST_RESOURCE_ERROR_OPEN_READ(_WRITE): a refused or unreachable server */

/* The next ERROR or EOS message on `pipeline`'s bus within `timeout_ns` (0: do not wait):
 * 0 none, 1 end of stream, -1 an error with *error set ("element: message") and *cause one of
 * SYNCSCAN_GST_CAUSE_*. */
static inline int syncscan_gst_poll_bus(GstElement *pipeline, uint64_t timeout_ns, char **error, int *cause) {
    GstBus *bus = gst_element_get_bus(pipeline);
    GstMessage *m = gst_bus_timed_pop_filtered(bus, timeout_ns, GST_MESSAGE_ERROR | GST_MESSAGE_EOS);
    gst_object_unref(bus);
    if (!m) return 0;
    int result = 1;
    if (GST_MESSAGE_TYPE(m) == GST_MESSAGE_ERROR) {
        GError *e = NULL;
        gchar *debug = NULL;
        gst_message_parse_error(m, &e, &debug);
        *error = g_strdup_printf("%s: %s", GST_OBJECT_NAME(GST_MESSAGE_SRC(m)), e ? e->message : "unknown error");
        *cause = SYNCSCAN_GST_CAUSE_OTHER;
        if (e && e->domain == GST_RESOURCE_ERROR) {
            if (e->code == GST_RESOURCE_ERROR_NOT_AUTHORIZED) *cause = SYNCSCAN_GST_CAUSE_NOT_AUTHORIZED;
            else if (e->code == GST_RESOURCE_ERROR_NOT_FOUND) *cause = SYNCSCAN_GST_CAUSE_NOT_FOUND;
            else if (e->code == GST_RESOURCE_ERROR_OPEN_READ || e->code == GST_RESOURCE_ERROR_OPEN_WRITE ||
                     e->code == GST_RESOURCE_ERROR_OPEN_READ_WRITE) *cause = SYNCSCAN_GST_CAUSE_CANNOT_OPEN;
        }
        if (e) g_error_free(e);
        g_free(debug);
        result = -1;
    }
    gst_message_unref(m);
    return result;
}

/* A sample's luma, mapped: the Y plane (or the only plane of GRAY8) with its stride. */
typedef struct {
    GstSample *sample;
    GstVideoFrame frame;
    const uint8_t *luma;
    size_t byte_count;  /* stride × height where the mapping holds it (a Y plane followed by chroma), else the rows' bytes */
    int width, height, stride;
    int64_t running_time_ns;  /* -1 when the buffer has no timestamp */
    int discont;              /* GST_BUFFER_FLAG_DISCONT or GST_BUFFER_FLAG_GAP */
    int64_t ntp_ns;           /* the buffer's timestamp/x-ntp reference timestamp (ns since 1900), -1 none or not asked */
    int fps_n, fps_d;         /* the caps' framerate (0/1: variable or unknown) */
    const char *format;       /* the caps' video format (gst_video_format_to_string: I420, GRAY8, …), static */
} syncscan_gst_luma;

/* The buffer's GstReferenceTimestampMeta for caps timestamp/x-ntp (gst_buffer_get_reference_timestamp_meta):
 * nanoseconds since the NTP epoch (1900) on the sender's clock, -1 when the buffer has none. rtpjitterbuffer
 * attaches it (rtspsrc add-reference-timestamp-meta=true) once an RTCP sender report has mapped the RTP clock. */
static inline int64_t syncscan_gst_ntp_reference(GstBuffer *buffer) {
    static GstStaticCaps ntp = GST_STATIC_CAPS("timestamp/x-ntp");
    GstCaps *caps = gst_static_caps_get(&ntp);
    GstReferenceTimestampMeta *meta = gst_buffer_get_reference_timestamp_meta(buffer, caps);
    gst_caps_unref(caps);
    if (!meta || !GST_CLOCK_TIME_IS_VALID(meta->timestamp) || meta->timestamp > (GstClockTime)INT64_MAX) return -1;
    return (int64_t)meta->timestamp;
}

/* gst_app_sink_try_pull_sample within `timeout_ns`, then gst_video_frame_map of its buffer:
 * 1 a frame in *out (release it with syncscan_gst_luma_release), 0 none yet, 2 end of stream,
 * -1 a sample that is not 8-bit luma-first video (with *error set). With `read_ntp`, out->ntp_ns
 * is the buffer's NTP reference timestamp (syncscan_gst_ntp_reference), else -1. */
static inline int syncscan_gst_pull_luma(GstElement *sink, uint64_t timeout_ns, int read_ntp, syncscan_gst_luma *out, char **error) {
    GstSample *sample = gst_app_sink_try_pull_sample(GST_APP_SINK(sink), timeout_ns);
    if (!sample) return gst_app_sink_is_eos(GST_APP_SINK(sink)) ? 2 : 0;
    GstVideoInfo info;
    GstCaps *caps = gst_sample_get_caps(sample);
    GstBuffer *buffer = gst_sample_get_buffer(sample);
    if (!caps || !buffer || !gst_video_info_from_caps(&info, caps)) {
        *error = caps ? gst_caps_to_string(caps) : g_strdup("(no caps)");
        gst_sample_unref(sample);
        return -1;
    }
    const GstVideoFormatInfo *f = info.finfo;
    if (!GST_VIDEO_FORMAT_INFO_IS_YUV(f) && !GST_VIDEO_FORMAT_INFO_IS_GRAY(f)) goto unusable;
    if (GST_VIDEO_FORMAT_INFO_DEPTH(f, 0) != 8 || GST_VIDEO_FORMAT_INFO_PSTRIDE(f, 0) != 1 || GST_VIDEO_FORMAT_INFO_PLANE(f, 0) != 0) goto unusable;
    memset(out, 0, sizeof *out);
    if (!gst_video_frame_map(&out->frame, &info, buffer, GST_MAP_READ)) {
        *error = g_strdup("gst_video_frame_map failed");
        gst_sample_unref(sample);
        return -1;
    }
    out->sample = sample;
    out->luma = GST_VIDEO_FRAME_COMP_DATA(&out->frame, 0);
    out->stride = GST_VIDEO_FRAME_COMP_STRIDE(&out->frame, 0);
    out->width = GST_VIDEO_FRAME_COMP_WIDTH(&out->frame, 0);
    out->height = GST_VIDEO_FRAME_COMP_HEIGHT(&out->frame, 0);
    size_t available = out->frame.map[0].size - (size_t)(out->luma - (const uint8_t *)out->frame.map[0].data);
    size_t full = (size_t)out->stride * (size_t)out->height;
    out->byte_count = full <= available ? full : (size_t)out->stride * (size_t)(out->height - 1) + (size_t)out->width;
    GstClockTime pts = GST_BUFFER_PTS(buffer);
    const GstSegment *segment = gst_sample_get_segment(sample);
    guint64 running = (GST_CLOCK_TIME_IS_VALID(pts) && segment) ? gst_segment_to_running_time(segment, GST_FORMAT_TIME, pts) : GST_CLOCK_TIME_NONE;
    out->running_time_ns = GST_CLOCK_TIME_IS_VALID(running) ? (int64_t)running : -1;
    out->discont = GST_BUFFER_FLAG_IS_SET(buffer, GST_BUFFER_FLAG_DISCONT) || GST_BUFFER_FLAG_IS_SET(buffer, GST_BUFFER_FLAG_GAP);
    out->ntp_ns = read_ntp ? syncscan_gst_ntp_reference(buffer) : -1;
    out->fps_n = GST_VIDEO_INFO_FPS_N(&info);
    out->fps_d = GST_VIDEO_INFO_FPS_D(&info);
    out->format = gst_video_format_to_string(GST_VIDEO_INFO_FORMAT(&info));
    return 1;
unusable:
    *error = g_strdup_printf("the sink got %s, not 8-bit luma", gst_video_format_to_string(GST_VIDEO_INFO_FORMAT(&info)));
    gst_sample_unref(sample);
    return -1;
}

/* Unmaps the frame and drops the sample (any thread). */
static inline void syncscan_gst_luma_release(syncscan_gst_luma *l) {
    gst_video_frame_unmap(&l->frame);
    gst_sample_unref(l->sample);
    l->sample = NULL;
}
#endif
