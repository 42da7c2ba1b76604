"""The layout stage: pan.h and pan.c joined with the Model into a StateLayout.

``read_layout(workdir, model, types, flags)`` reads the pan.h and pan.c that ``spin -a`` wrote
into ``workdir`` and says, by name, which fields of ``State``, of each proctype's ``Pk`` and of
each channel's ``Qk`` hold pids or channel ids, which arrays are indexed by pid, which slot each
process occupies (``pid + BASE``) and which ``Qk`` each channel uses.
"""

from .panh import (
    CField,
    CStruct,
    LayoutError,
    PanHeader,
    PanSource,
    QueueCreation,
    parse_pan_c,
    parse_pan_h,
    read_pan_c,
    read_pan_h,
)
from .statevector import (
    ChannelSlot,
    ChannelType,
    Member,
    ProcessSlot,
    ProcType,
    StateLayout,
    ValueField,
    build_layout,
    read_layout,
)

__all__ = [
    "CField", "CStruct", "ChannelSlot", "ChannelType", "LayoutError", "Member", "PanHeader",
    "PanSource", "ProcType", "ProcessSlot", "QueueCreation", "StateLayout", "ValueField",
    "build_layout", "parse_pan_c", "parse_pan_h", "read_layout", "read_pan_c", "read_pan_h",
]
