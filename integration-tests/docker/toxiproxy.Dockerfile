# Toxiproxy as a static binary, laid out like the official image (ghcr.io/shopify/toxiproxy).
FROM scratch
COPY toxiproxy /toxiproxy
EXPOSE 8474
ENTRYPOINT ["/toxiproxy"]
CMD ["-host=0.0.0.0"]
