import Capture
