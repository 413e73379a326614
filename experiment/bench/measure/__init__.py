"""The measuring wing of `factqa bench`: studies that run the models or time the machine (sampling,
adaptive stopping, the large model's checks, speculative decoding, servers, threads, portability,
the scan's growth, the fitted files a wheel ships)."""
