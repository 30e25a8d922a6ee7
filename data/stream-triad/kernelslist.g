kernel-1.traceg.gz
