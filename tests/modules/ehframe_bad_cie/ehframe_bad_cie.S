/*
 * ehframe_bad_cie: one function and its call-frame information written by
 * hand, the FDE's CIE pointer wrong: it counts 0x1000 bytes back from its
 * own field, before the start of .eh_frame.  The loader must refuse the
 * module with one line naming the FDE, and keep nothing of it.
 *
 * ld -r reads .eh_frame too: building this module it says "error in
 * ehframe_bad_cie.o(.eh_frame); no .eh_frame_hdr table will be created"
 * and copies the section as it is, which is what the test needs.
 */
	.text
	.globl	bad_cie_fn
bad_cie_fn:
	ret

	.section .eh_frame,"a",@progbits
cie:
	.long	cie_end - cie_body	/* length */
cie_body:
	.long	0			/* CIE id: this is a CIE */
	.byte	1			/* version */
	.asciz	"zR"			/* augmentation */
	.uleb128 1			/* code alignment */
#ifdef __x86_64__
	.sleb128 -8			/* data alignment */
	.byte	16			/* return address column */
#else
	.sleb128 -4
	.byte	8
#endif
	.uleb128 1			/* augmentation data length */
	.byte	0x1b			/* FDE pointers: pcrel | sdata4 */
#ifdef __x86_64__
	.byte	0x0c, 7, 8		/* def_cfa %rsp+8 */
	.byte	0x90, 1			/* offset %rip at cfa-8 */
#else
	.byte	0x0c, 4, 4		/* def_cfa %esp+4 */
	.byte	0x88, 1			/* offset %eip at cfa-4 */
#endif
	.balign	4, 0
cie_end:

fde:
	.long	fde_end - fde_body	/* length */
fde_body:
	.long	0x1000			/* CIE pointer: WRONG, fde_body - cie is right */
	.long	bad_cie_fn - .		/* initial location (pc-relative) */
	.long	1			/* address range: the ret */
	.uleb128 0			/* augmentation data length */
	.balign	4, 0
fde_end:

	.section .note.GNU-stack,"",@progbits
