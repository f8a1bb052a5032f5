import Media
import Testing

/// `SecretRedaction`: every secret form hidden, the rest kept, idempotent.
@Suite(.offThePool) struct SecretRedactionTests {
    /// Each form the issue names, with the secret `S3CRET` (or a part of it) nowhere in the result.
    static let forms: [(text: String, redacted: String)] = [
        ("rtsp://127.0.0.1:8554/test?password=S3CRET", "rtsp://127.0.0.1:8554/test?password=***"),
        ("rtsp://cam/live?channel=1&token=S3CRET&subtype=0", "rtsp://cam/live?channel=1&token=***&subtype=0"),
        // A secret's value runs to the next & or ; (it may hold a raw #): the fragment goes with it.
        ("https://h/x?X-Amz-Signature=S3CRET;api_key=S3CRET#access_token=S3CRET", "https://h/x?X-Amz-Signature=***;api_key=***"),
        ("https://h/x#access_token=S3CRET&state=1", "https://h/x#access_token=***&state=1"),
        ("rtsp://cam/x?pass%77ord=S3CRET&pwd=S3CRET&auth=S3CRET&key=S3CRET", "rtsp://cam/x?pass%77ord=***&pwd=***&auth=***&key=***"),
        ("rtsp://viewer:S3/CRET@cam:554/live", "rtsp://viewer:***@cam:554/live"),
        ("rtsp://viewer:S3#CR?ET@cam/live", "rtsp://viewer:***@cam/live"),
        ("rtsp://viewer:S3@C/R#E?T@cam", "rtsp://viewer:***@cam"),
        ("gst:rtspsrc location=rtsp://cam/x user-id=viewer user-pw=\"S3CRET with blanks\" ! decodebin ! appsink",
         "gst:rtspsrc location=rtsp://cam/x user-id=viewer user-pw=*** ! decodebin ! appsink"),
        ("gst:souphttpsrc proxy-pw='S3CRET' location=\"http://u:S3CRET@h/a b?token=S3CRET\" ! appsink",
         "gst:souphttpsrc proxy-pw=*** location=\"http://u:***@h/a b?token=***\" ! appsink"),
        ("unsupported source \"rtsp://u:S3/CRET@cam\": expected …", "unsupported source \"rtsp://u:***@cam\": expected …"),
        // Any blank ends a URL, a lone line feed too: each line's URL is its own.
        ("rtsp://u:S3CRET@h/x\nrtsp://v:S3CRET@k", "rtsp://u:***@h/x\nrtsp://v:***@k"),
        // A camera taking its credentials in the path: a secret's name=value anywhere.
        ("rtsp://cam:554/user=admin&password=S3CRET&channel=1", "rtsp://cam:554/user=admin&password=***&channel=1"),
        ("gst:souphttpsrc pass%77ord=S3CRET", "gst:souphttpsrc pass%77ord=***"),
    ]

    @Test func everySecretFormIsHiddenAndTheRestKept() {
        for (text, expected) in Self.forms {
            let redacted = SecretRedaction.redacted(text)
            #expect(redacted == expected, "\(text)")
            #expect(!redacted.contains("S3") && !redacted.contains("CRET"), "\(redacted)")
            #expect(SecretRedaction.redacted(redacted) == redacted, "idempotent: \(redacted)")
            #expect(SecretRedaction.holdsSecret(text) && !SecretRedaction.holdsSecret(redacted))
        }
    }

    /// A property's value (`pw%=`) that a URL's password hides the middle of reads further once
    /// `***` stands there: redacting settles on one text, which a second redaction keeps (found
    /// by FuzzRedaction; its input is a seed there).
    @Test func aRedactedTextThatAPropertyReadsFurtherIsRedactedUntilItSettles() {
        let text = "gst:src location=\"rtsp://u-pw%%%=:S3CRET@ve/,ain\r@ss/\n! appsink?&pass=S3CRET\" "
        for hiding in [URLAuthority.Redaction.password, .userinfo] {
            let once = SecretRedaction.redacted(text, hiding: hiding)
            #expect(SecretRedaction.redacted(once, hiding: hiding) == once, "\(once.debugDescription)")
            #expect(!once.contains("S3") && !once.contains("CRET"), "\(once.debugDescription)")
        }
    }

    @Test func textWithoutASecretIsKeptWhole() {
        for text in ["/dev/video0", "y4m:-", "rtsp://cam:554/live?channel=1&subtype=0#t", "https://hooks.example?to=a@b",
                     "rtsp://viewer@cam/a@b", "gst:videotestsrc pattern=ball ! appsink name=sink", "keyframe=1 passes=2"] {
            #expect(SecretRedaction.redacted(text) == text && !SecretRedaction.holdsSecret(text), "\(text)")
        }
    }

    @Test func aUserNameIsKeptOnlyWhenAskedAndABareUserinfoMayBeAToken() {
        #expect(SecretRedaction.redacted("https://u:pw@h/x") == "https://u:***@h/x")
        #expect(SecretRedaction.redacted("https://u:pw@h/x", hiding: .userinfo) == "https://***@h/x")
        #expect(SecretRedaction.redacted("https://ghp_token@git.example/x", hiding: .userinfo) == "https://***@git.example/x")
        #expect(SecretRedaction.holdsSecret("https://ghp_token@git.example/x", hiding: .userinfo))
        #expect(SecretRedaction.redacted("https://TOKEN:x-oauth-basic@h/p/a", hiding: .userinfo) == "https://***@h/p/a")
    }

    /// An '@' in a query after a `user:` is taken for the end of a password holding raw delimiters:
    /// more is hidden than the secret, never less.
    @Test func anAtAfterTheAuthorityHidesMoreNeverLess() {
        let text = "rtsp://user:pw@[::1]:8554/live?token=a@b#f"
        let redacted = SecretRedaction.redacted(text)
        #expect(!redacted.contains("pw") && !redacted.contains("a@b") && redacted.hasPrefix("rtsp://user:***"), "\(redacted)")
        #expect(SecretRedaction.redacted(redacted) == redacted)
    }

    @Test func theIdentityHasNoUserinfoQueryOrFragment() {
        #expect(SecretRedaction.identity("rtsp://viewer:S3/CRET@cam:554/live?password=S3CRET#x") == "rtsp://cam:554/live")
        #expect(SecretRedaction.identity("rtsp://127.0.0.1:8554/test?password=S3CRET&x=1") == "rtsp://127.0.0.1:8554/test")
        #expect(SecretRedaction.identity("https://tok@h/p") == "https://h/p")
        #expect(SecretRedaction.identity("gst:rtspsrc location=rtsp://u:pw@cam/x?a=1 user-pw=S3CRET ! appsink")
                == "gst:rtspsrc location=rtsp://cam/x user-pw=*** ! appsink")
        #expect(SecretRedaction.identity("v4l2:/dev/video0") == "v4l2:/dev/video0")
        let identity = SecretRedaction.identity("rtsp://viewer:S3/CRET@cam:554/live?password=S3CRET#x")
        #expect(SecretRedaction.identity(identity) == identity)
    }

    /// A property's quoted value that a first pass takes for an earlier property's (the quote
    /// that opens it closes that one's) is hidden from the identity too, as redaction hides it.
    @Test func theIdentityHidesASecretThatAFirstPassTakesForAnotherValue() {
        let text = "gst:rtspsrc location=rtsp://cam/x b\"c user-pw=\"ink user-pw=\"S3CRET\" ! appsink"
        let identity = SecretRedaction.identity(text)
        #expect(!identity.contains("S3") && !identity.contains("CRET"), "\(identity.debugDescription)")
        #expect(!SecretRedaction.redacted(text, hiding: .userinfo).contains("CRET"))
        #expect(SecretRedaction.identity(identity) == identity)
    }

    @Test func secretsAreListedForALibrarysOwnMessages() {
        #expect(SecretRedaction.secrets(in: "rtsp://u:hunter2@h/x?token=abc") == ["hunter2", "abc"])
        #expect(SecretRedaction.secrets(in: "rtsp://h/x") == [])
    }

    @Test func secretNamesAreWordsOrPartsOfThem() {
        for name in ["password", "PASS", "pwd", "user-pw", "proxy-pw", "access_token", "apikey", "api-key", "X-Amz-Signature",
                     "client_secret", "auth", "sig", "passphrase", "pass%77ord"] {
            #expect(SecretRedaction.isSecretName(name), "\(name)")
        }
        for name in ["channel", "subtype", "user", "user-id", "location", "passes", "keyframe", "monkey", "name"] {
            #expect(!SecretRedaction.isSecretName(name), "\(name)")
        }
    }
}
