"""Terraform's side of a call, played by Python's grpcio on its default
settings: GetMetadata and GetProviderSchema over the plugin's unix socket
with go-plugin's AutoMTLS. Prints each answer's protobuf bytes in hex, or
the gRPC error, one line per call.

usage: grpcio_client.py SOCKET SERVER_CERT_B64 CLIENT_CERT_PEM CLIENT_KEY_PEM
"""

import base64
import sys
import textwrap

import grpc


def pem_of(der_b64_unpadded):
    der = base64.b64decode(der_b64_unpadded + "=" * (-len(der_b64_unpadded) % 4))
    body = "\n".join(textwrap.wrap(base64.b64encode(der).decode(), 64))
    return f"-----BEGIN CERTIFICATE-----\n{body}\n-----END CERTIFICATE-----\n".encode()


def main():
    socket, server_cert, cert_file, key_file = sys.argv[1:5]
    with open(cert_file, "rb") as f:
        cert = f.read()
    with open(key_file, "rb") as f:
        key = f.read()
    # go-plugin's client trusts exactly the certificate from the handshake
    # line, which is made for "localhost". grpcio names a unix socket by
    # its percent-encoded path instead, as SNI and as :authority; its TLS
    # host check would refuse the certificate, so the name is set, as any
    # client of a go-plugin server must.
    creds = grpc.ssl_channel_credentials(
        root_certificates=pem_of(server_cert), private_key=key, certificate_chain=cert
    )
    options = [("grpc.ssl_target_name_override", "localhost")]
    with grpc.secure_channel("unix:" + socket, creds, options=options) as channel:
        for method in ("GetMetadata", "GetProviderSchema"):
            # A generic stub: the empty request is the empty message.
            call = channel.unary_unary(
                f"/tfplugin6.Provider/{method}",
                request_serializer=lambda b: b,
                response_deserializer=lambda b: b,
            )
            try:
                print(method, "ok", call(b"", timeout=10).hex())
            except grpc.RpcError as e:
                print(method, "error", e.code(), e.details())


if __name__ == "__main__":
    main()
