/*
 * cudnn_api.h - the few declarations of cuDNN 9's backend (graph) API that
 * the cudnn baseline (cudnn.c) needs, so the harness builds with the CUDA
 * Toolkit alone: cudnn.h is not installed on the CI machine, and the library
 * itself is opened at run time with dlopen.
 *
 * Source: NVIDIA cuDNN 9 "Backend API" reference (docs.nvidia.com/deeplearning/
 * cudnn/backend/latest/api/cudnn-graph-library.html: cudnnBackendDescriptorType_t,
 * cudnnBackendAttributeName_t, cudnnBackendAttributeType_t, cudnnDataType_t,
 * cudnnPointwiseMode_t, cudnnReduceTensorOp_t, cudnnBackendHeurMode_t and the
 * cudnnBackend* functions).  The numeric values are those of cuDNN 9's public
 * cudnn_graph.h (ABI-stable within major version 9); harness/cudnn_abi_check.c
 * compares every one with that header where it is installed.  The names carry
 * a KTC_ prefix so they can never clash with the real header.
 */
#ifndef KTH_CUDNN_API_H
#define KTH_CUDNN_API_H
#include <stddef.h>
#include <stdint.h>

/* cudnnStatus_t: 0 is CUDNN_STATUS_SUCCESS */
#define KTC_STATUS_SUCCESS 0

/* cudnnBackendDescriptorType_t */
#define KTC_POINTWISE_DESCRIPTOR 0
#define KTC_ENGINECFG_DESCRIPTOR 3
#define KTC_ENGINEHEUR_DESCRIPTOR 4
#define KTC_EXECUTION_PLAN_DESCRIPTOR 5
#define KTC_OPERATION_POINTWISE_DESCRIPTOR 13
#define KTC_OPERATIONGRAPH_DESCRIPTOR 15
#define KTC_VARIANT_PACK_DESCRIPTOR 16
#define KTC_TENSOR_DESCRIPTOR 17
#define KTC_MATMUL_DESCRIPTOR 18
#define KTC_OPERATION_MATMUL_DESCRIPTOR 19
#define KTC_REDUCTION_DESCRIPTOR 21
#define KTC_OPERATION_REDUCTION_DESCRIPTOR 22

/* cudnnBackendAttributeType_t */
#define KTC_TYPE_HANDLE 0
#define KTC_TYPE_DATA_TYPE 1
#define KTC_TYPE_BOOLEAN 2
#define KTC_TYPE_INT64 3
#define KTC_TYPE_FLOAT 4
#define KTC_TYPE_VOID_PTR 6
#define KTC_TYPE_HEUR_MODE 8
#define KTC_TYPE_POINTWISE_MODE 14
#define KTC_TYPE_BACKEND_DESCRIPTOR 15
#define KTC_TYPE_REDUCTION_OPERATOR_TYPE 18

/* cudnnBackendAttributeName_t */
#define KTC_ATTR_POINTWISE_MODE 0
#define KTC_ATTR_POINTWISE_MATH_PREC 1
#define KTC_ATTR_POINTWISE_AXIS 9
#define KTC_ATTR_ENGINEHEUR_MODE 200
#define KTC_ATTR_ENGINEHEUR_OPERATION_GRAPH 201
#define KTC_ATTR_ENGINEHEUR_RESULTS 202
#define KTC_ATTR_EXECUTION_PLAN_HANDLE 400
#define KTC_ATTR_EXECUTION_PLAN_ENGINE_CONFIG 401
#define KTC_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE 402
#define KTC_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR 750
#define KTC_ATTR_OPERATION_POINTWISE_XDESC 751
#define KTC_ATTR_OPERATION_POINTWISE_BDESC 752
#define KTC_ATTR_OPERATION_POINTWISE_YDESC 753
#define KTC_ATTR_OPERATION_POINTWISE_TDESC 758
#define KTC_ATTR_OPERATIONGRAPH_HANDLE 800
#define KTC_ATTR_OPERATIONGRAPH_OPS 801
#define KTC_ATTR_TENSOR_BYTE_ALIGNMENT 900
#define KTC_ATTR_TENSOR_DATA_TYPE 901
#define KTC_ATTR_TENSOR_DIMENSIONS 902
#define KTC_ATTR_TENSOR_STRIDES 903
#define KTC_ATTR_TENSOR_UNIQUE_ID 906
#define KTC_ATTR_TENSOR_IS_VIRTUAL 907
#define KTC_ATTR_TENSOR_IS_BY_VALUE 908
#define KTC_ATTR_VARIANT_PACK_UNIQUE_IDS 1000
#define KTC_ATTR_VARIANT_PACK_DATA_POINTERS 1001
#define KTC_ATTR_VARIANT_PACK_WORKSPACE 1003
#define KTC_ATTR_MATMUL_COMP_TYPE 1500
#define KTC_ATTR_OPERATION_MATMUL_ADESC 1520
#define KTC_ATTR_OPERATION_MATMUL_BDESC 1521
#define KTC_ATTR_OPERATION_MATMUL_CDESC 1522
#define KTC_ATTR_OPERATION_MATMUL_DESC 1523
#define KTC_ATTR_REDUCTION_OPERATOR 1600
#define KTC_ATTR_REDUCTION_COMP_TYPE 1601
#define KTC_ATTR_OPERATION_REDUCTION_XDESC 1610
#define KTC_ATTR_OPERATION_REDUCTION_YDESC 1611
#define KTC_ATTR_OPERATION_REDUCTION_DESC 1612

/* cudnnDataType_t */
#define KTC_DATA_FLOAT 0
#define KTC_DATA_HALF 2
#define KTC_DATA_INT32 4
#define KTC_DATA_BFLOAT16 9
#define KTC_DATA_BOOLEAN 11

/* cudnnPointwiseMode_t */
#define KTC_POINTWISE_ADD 0
#define KTC_POINTWISE_MUL 1
#define KTC_POINTWISE_DIV 6
#define KTC_POINTWISE_SUB 9
#define KTC_POINTWISE_EXP 13
#define KTC_POINTWISE_LOG 15
#define KTC_POINTWISE_CMP_GE 303
#define KTC_POINTWISE_GEN_INDEX 501
#define KTC_POINTWISE_BINARY_SELECT 601

/* cudnnReduceTensorOp_t */
#define KTC_REDUCE_ADD 0
#define KTC_REDUCE_MAX 3

/* cudnnBackendHeurMode_t */
#define KTC_HEUR_MODE_INSTANT 0
#define KTC_HEUR_MODE_FALLBACK 2
#define KTC_HEUR_MODE_A 3

/* Function types of the library entry points (all return cudnnStatus_t,
 * an int-sized enum; enums are passed as int). */
typedef void *ktc_desc;
typedef void *ktc_handle;
typedef int (*ktc_create_fn)(ktc_handle *);
typedef int (*ktc_destroy_fn)(ktc_handle);
typedef int (*ktc_set_stream_fn)(ktc_handle, void *stream);
typedef size_t (*ktc_version_fn)(void);
typedef const char *(*ktc_error_string_fn)(int);
typedef void (*ktc_last_error_fn)(char *msg, size_t n);
typedef int (*ktc_create_desc_fn)(int type, ktc_desc *);
typedef int (*ktc_destroy_desc_fn)(ktc_desc);
typedef int (*ktc_finalize_fn)(ktc_desc);
typedef int (*ktc_set_attr_fn)(ktc_desc, int name, int type, int64_t count,
			       const void *values);
typedef int (*ktc_get_attr_fn)(ktc_desc, int name, int type, int64_t requested,
			       int64_t *returned, void *values);
typedef int (*ktc_execute_fn)(ktc_handle, ktc_desc plan, ktc_desc pack);

#endif
