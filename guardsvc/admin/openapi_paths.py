"""The administrator and host-check operations of the API document."""
from marshmallow import fields

from guardsvc.admin.schemas import TicketDetailSchema, TicketSummarySchema
from guardsvc.audit.schemas import AuditEventSchema
from guardsvc.blocks.schemas import BlockCheckSchema, BlockCreateSchema, BlockLiftSchema, BlockSchema
from guardsvc.listing import MAX_PER_PAGE, PaginationSchema


def paths():
    """``{path: {method: operation}}`` for /api/admin/... and /api/guard/blocks/check."""
    from guardsvc.openapi import BODY, envelope, operation, path_param, query_param

    pagination = fields.Nested(PaginationSchema, required=True)
    page_params = [query_param("page", {"type": "integer", "minimum": 1}),
                   query_param("per_page", {"type": "integer", "minimum": 1, "maximum": MAX_PER_PAGE}),
                   query_param("q", {"type": "string", "maxLength": 200})]
    block = envelope("BlockResponse", BlockSchema)
    ticket_param = path_param("ticketNumber", {"type": "string"})
    reference_param = path_param("reference", {"type": "string"})
    return {
        "/api/guard/blocks/check": {"get": operation(
            "Cek apakah klien (IP, perangkat, IP lokal) diblokir", envelope("BlockCheck", BlockCheckSchema),
            errors=(422,), params=[query_param("ip", {"type": "string"}),
                                   query_param("device_id", {"type": "string"}),
                                   query_param("local_ip", {"type": "string"})])},
        "/api/admin/tickets": {"get": operation(
            "Antrean tiket (administrator)",
            envelope("TicketPage", TicketSummarySchema, many=True, pagination=pagination,
                     counts=fields.Dict(keys=fields.String(), values=fields.Integer(), required=True)),
            errors=(422,), params=[query_param("status", {"type": "string",
                                                          "enum": ["pending", "approved", "rejected"]}),
                                   *page_params])},
        "/api/admin/tickets/{ticketNumber}": {"get": operation(
            "Satu tiket lengkap (administrator)", envelope("TicketDetail", TicketDetailSchema),
            params=[ticket_param])},
        "/api/admin/blocks": {
            "get": operation("Daftar blokir (administrator)",
                             envelope("BlockPage", BlockSchema, many=True, pagination=pagination),
                             errors=(422,), params=[query_param("active", {"type": "boolean"}), *page_params]),
            "post": operation("Buat blokir (administrator)", block, 201, BlockCreateSchema, BODY),
        },
        "/api/admin/blocks/{reference}/lift": {"post": operation(
            "Buka blokir (administrator)", block, body=BlockLiftSchema, errors=BODY + (409,),
            params=[reference_param])},
        "/api/admin/audit": {"get": operation(
            "Log audit tindakan administrator",
            envelope("AuditPage", AuditEventSchema, many=True, pagination=pagination),
            errors=(422,), params=page_params)},
    }
