import Testing

/// The suites that run GStreamer pipelines in the test process, one test at a time.
///
/// The daemon runs one pipeline; the test process ran several at once (two RTSP sources and the
/// file sources' demuxers), and once in CI the unit run hung inside GStreamer and GLib, with
/// `rtspsrc`'s tasks waiting for GLib's class-initialization lock and a decodebin thread for the
/// plugin-loading lock. Tests that start the daemon as a child process are not in here: each has a
/// process of its own.
@Suite(.serialized) enum InProcessPipelines {}
