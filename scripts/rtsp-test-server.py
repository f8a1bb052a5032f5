#!/usr/bin/python3
"""rtsp-test-server.py - GStreamer's own RTSP server for the tests: H.264 of PGM frames, looped.

    rtsp-test-server.py [--hold=EVERY:MS] PORT 'DIR/frame-%d.pgm' COUNT FPS [USER:PASSWORD]

Serves rtsp://127.0.0.1:PORT/test: the frames DIR/frame-0.pgm … frame-(COUNT-1).pgm at FPS,
over and over, encoded by openh264enc (gstreamer1.0-plugins-bad). Prints `listening PORT`
once it accepts connections. Without USER:PASSWORD there is no authentication (credentials in a
client's URL are ignored); with it, only a client giving them over HTTP Basic may play the
stream (RTSPAuth), any other is answered 401 Unauthorized.
Frame N's buffer timestamp, and so its RTP timestamp, is N / FPS (N counted from the stream's
start, across loops). With --hold=EVERY:MS, every EVERY-th frame is held MS milliseconds before
it is sent, and the frames behind it then go out late in a burst: their arrival times leave the
stream's timeline, their timestamps do not.
Needs Debian's python3-gi and gir1.2-gst-rtsp-server-1.0 (run with /usr/bin/python3)."""
import sys
import time

import gi

gi.require_version("Gst", "1.0")
gi.require_version("GstRtspServer", "1.0")
from gi.repository import GLib, Gst, GstRtspServer  # noqa: E402

hold = next((a.partition("=")[2] for a in sys.argv[1:] if a.startswith("--hold=")), None)
args = [a for a in sys.argv[1:] if not a.startswith("--hold=")]
port, pattern, count, fps = args[0], args[1], int(args[2]), int(args[3])
credentials = args[4] if len(args) > 4 else None
Gst.init(None)
server = GstRtspServer.RTSPServer()
server.set_address("127.0.0.1")
server.set_service(port)
factory = GstRtspServer.RTSPMediaFactory()
factory.set_launch(
    f'( multifilesrc location="{pattern}" index=0 stop-index={count - 1} loop=true '
    f'caps="image/x-portable-graymap,framerate={fps}/1" ! pnmdec ! videoconvert ! video/x-raw,format=I420 '
    f"! openh264enc gop-size={fps} bitrate=4000000 ! h264parse ! rtph264pay name=pay0 pt=96 config-interval=1 )"
)
factory.set_shared(True)
if credentials is not None:
    user, _, password = credentials.partition(":")
    # The role "viewer" may see and play the mount; Basic USER:PASSWORD is given that role.
    auth = GstRtspServer.RTSPAuth()
    token = GstRtspServer.RTSPToken()
    token.set_string(GstRtspServer.RTSP_TOKEN_MEDIA_FACTORY_ROLE, "viewer")
    auth.add_basic(GstRtspServer.RTSPAuth.make_basic(user, password), token)
    server.set_auth(auth)
    permissions = GstRtspServer.RTSPPermissions()
    permissions.add_permission_for_role("viewer", GstRtspServer.RTSP_PERM_MEDIA_FACTORY_ACCESS, True)
    permissions.add_permission_for_role("viewer", GstRtspServer.RTSP_PERM_MEDIA_FACTORY_CONSTRUCT, True)
    factory.set_permissions(permissions)
if hold is not None:
    every, _, milliseconds = hold.partition(":")
    every, milliseconds = int(every), int(milliseconds)
    frames_seen = [0]

    def hold_frame(pad, info):
        # Before the payloader, one buffer per frame: sleeping here holds the streaming thread.
        frames_seen[0] += 1
        if frames_seen[0] % every == 0:
            time.sleep(milliseconds / 1000)
        return Gst.PadProbeReturn.OK

    def configure(factory, media):
        pay = media.get_element().get_by_name("pay0")
        pay.get_static_pad("sink").add_probe(Gst.PadProbeType.BUFFER, hold_frame)

    factory.connect("media-configure", configure)
server.get_mount_points().add_factory("/test", factory)
if server.attach(None) == 0:
    sys.exit(f"rtsp-test-server: cannot listen on 127.0.0.1:{port}")
print(f"listening {server.get_bound_port()}", flush=True)
GLib.MainLoop().run()
